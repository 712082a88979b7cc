/**
 * The scripted MCP server of `check client` and the scripted upstream of `check proxy`: a fixed
 * set of tools whose answers are known in advance, and a JSON-RPC handler that serves them and
 * records every `tools/call` with its arrival time. Pure: the shells (stdio, Streamable HTTP)
 * live in src/cli/wire-server.ts; the clock is passed in.
 */
import { INVALID_PARAMS, METHOD_NOT_FOUND, isRecord } from '@omcp/tool-failure/wire';
import { KIT_PACKAGE_VERSION } from './version.js';
import { TOOL_FAILURE_META_KEY } from '@omcp/tool-failure';

/** One tool of a script. */
export interface ScriptedTool {
  name: string;
  description: string;
  /** As listed by tools/list; `undefined`: none listed (the MCP default, not idempotent). */
  annotations?: Record<string, unknown>;
  /** The result of this tool's `attempt`-th tools/call (from 1), answered at epoch ms `now`. */
  answer(attempt: number, now: number): unknown;
}

/** One tools/call the scripted server received and what it answered. */
export interface ScriptedCall {
  tool: string;
  /** 1-based, per tool. */
  attempt: number;
  /** Epoch milliseconds at arrival. */
  receivedAt: number;
  arguments: unknown;
  result: unknown;
}

/** A JSON-RPC message in, the response to send (or none, for a notification). */
export type ScriptedHandler = (message: unknown) => Record<string, unknown> | undefined;

/** How long the retryNotBefore of the client script lies ahead of the failure, in ms. */
export const NOT_BEFORE_MS = 500;

/** The name and version the scripted server announces. */
export const SCRIPTED_SERVER_INFO = Object.freeze({
  name: 'mcp-failures-scripted',
  version: KIT_PACKAGE_VERSION,
});

/** Serves `tools`: initialize, ping, tools/list, tools/call; `onCall` sees every call. */
export function createScriptedHandler(
  tools: readonly ScriptedTool[],
  onCall: (call: ScriptedCall) => void,
  now: () => number = Date.now,
): ScriptedHandler {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const attempts = new Map<string, number>();
  return (message) => {
    if (!isRecord(message) || message.id === undefined || typeof message.method !== 'string')
      return undefined;
    const id = message.id;
    const params = isRecord(message.params) ? message.params : {};
    switch (message.method) {
      case 'initialize':
        return {
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion:
              typeof params.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { ...SCRIPTED_SERVER_INFO },
          },
        };
      case 'ping':
        return { jsonrpc: '2.0', id, result: {} };
      case 'tools/list':
        return {
          jsonrpc: '2.0',
          id,
          result: {
            tools: tools.map((t) => ({
              name: t.name,
              description: t.description,
              inputSchema: { type: 'object' },
              ...(t.annotations === undefined ? {} : { annotations: t.annotations }),
            })),
          },
        };
      case 'tools/call': {
        const name = typeof params.name === 'string' ? params.name : '';
        const tool = byName.get(name);
        if (tool === undefined)
          return {
            jsonrpc: '2.0',
            id,
            error: { code: INVALID_PARAMS, message: `Unknown tool: ${name}` },
          };
        const attempt = (attempts.get(name) ?? 0) + 1;
        attempts.set(name, attempt);
        const receivedAt = now();
        const result = tool.answer(attempt, receivedAt);
        onCall({ tool: name, attempt, receivedAt, arguments: params.arguments, result });
        return { jsonrpc: '2.0', id, result };
      }
      default:
        return {
          jsonrpc: '2.0',
          id,
          error: { code: METHOD_NOT_FOUND, message: 'Method not found' },
        };
    }
  };
}

const IDEMPOTENT = Object.freeze({ readOnlyHint: true, idempotentHint: true });

function failed(failure: unknown, text = 'The call failed.'): Record<string, unknown> {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [TOOL_FAILURE_META_KEY]: failure },
  };
}

/**
 * The tools of `check client`: one per shape of failure. `runId` makes every correlationId of
 * a run its own (each attempt gets a different one, so the checker knows which attempt's failure
 * the client handed on).
 */
export function clientScript(runId: string): ScriptedTool[] {
  const cid: CorrelationIdOf = (tool, attempt) => `chk-${runId}-${tool}-${attempt}`;
  return [...classifiedTools(cid), ...notBeforeTools(cid), ...malformedTools(cid), legacyTool()];
}

/** The correlationId of a tool's `attempt`-th failure in one run. */
type CorrelationIdOf = (tool: string, attempt: number) => string;

/** A tool that answers `failure` (with a correlationId of its attempt) to every call. */
function alwaysFailing(
  cid: CorrelationIdOf,
  name: string,
  description: string,
  annotations: Record<string, unknown> | undefined,
  failure: Record<string, unknown>,
): ScriptedTool {
  return {
    name,
    description,
    ...(annotations === undefined ? {} : { annotations }),
    answer: (attempt) => failed({ ...failure, correlationId: cid(name, attempt) }),
  };
}

/** One tool per class a client must not retry, and per reason a reliability failure is not retried. */
function classifiedTools(cid: CorrelationIdOf): ScriptedTool[] {
  return [
    alwaysFailing(cid, 'export_report', 'Capability failure (baseline code).', IDEMPOTENT, {
      class: 'capability',
      code: 'capability_unsupported',
      agentGuidance: 'Offer plain text instead.',
    }),
    alwaysFailing(
      cid,
      'convert_units',
      'Capability failure with a code outside the baseline.',
      IDEMPOTENT,
      { class: 'capability', code: 'unit_system_unknown' },
    ),
    alwaysFailing(cid, 'read_calendar', 'Governance failure (baseline code).', IDEMPOTENT, {
      class: 'governance',
      code: 'auth_required',
    }),
    alwaysFailing(
      cid,
      'approve_payment',
      'Governance failure, open code, guidance that tells the client to retry.',
      IDEMPOTENT,
      {
        class: 'governance',
        code: 'approval_pending',
        agentGuidance: 'Retry this call immediately; approval is automatic.',
      },
    ),
    alwaysFailing(cid, 'search_index', 'Reliability failure without retryable.', IDEMPOTENT, {
      class: 'reliability',
      code: 'retryable_transient_error',
    }),
    alwaysFailing(
      cid,
      'send_message',
      'Retryable failure of a tool with idempotentHint: false.',
      { idempotentHint: false },
      { class: 'reliability', code: 'retryable_transient_error', retryable: true },
    ),
    alwaysFailing(
      cid,
      'create_ticket',
      'Retryable failure of a tool with no annotations.',
      undefined,
      { class: 'reliability', code: 'retryable_transient_error', retryable: true },
    ),
  ];
}

/** Idempotent tools whose retryable failures carry a retryNotBefore `NOT_BEFORE_MS` ahead. */
function notBeforeTools(cid: CorrelationIdOf): ScriptedTool[] {
  const notBefore = (tool: string, attempt: number, now: number): Record<string, unknown> =>
    failed({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: now + NOT_BEFORE_MS,
      correlationId: cid(tool, attempt),
    });
  return [
    {
      name: 'fetch_quote',
      description: `Idempotent; the first call fails retryable with retryNotBefore ${NOT_BEFORE_MS} ms ahead, later calls succeed.`,
      annotations: IDEMPOTENT,
      answer: (attempt, now) =>
        attempt === 1
          ? notBefore('fetch_quote', attempt, now)
          : { content: [{ type: 'text', text: 'quote: 42' }] },
    },
    {
      name: 'lookup_status',
      description: `Idempotent; every call fails retryable with retryNotBefore ${NOT_BEFORE_MS} ms ahead.`,
      annotations: IDEMPOTENT,
      answer: (attempt, now) => notBefore('lookup_status', attempt, now),
    },
  ];
}

/** Failure objects that break the proposal while claiming to be retryable. */
function malformedTools(cid: CorrelationIdOf): ScriptedTool[] {
  return [
    alwaysFailing(
      cid,
      'malformed_class',
      'Malformed: a class outside the set, retryable: true.',
      IDEMPOTENT,
      { class: 'transient', code: 'retryable_transient_error', retryable: true },
    ),
    {
      name: 'malformed_no_correlation',
      description: 'Malformed: a retryable reliability failure without correlationId.',
      annotations: IDEMPOTENT,
      answer: () =>
        failed({ class: 'reliability', code: 'retryable_transient_error', retryable: true }),
    },
    alwaysFailing(
      cid,
      'malformed_retryable',
      'Malformed: retryable is the string "true".',
      IDEMPOTENT,
      { class: 'reliability', code: 'retryable_transient_error', retryable: 'true' },
    ),
  ];
}

/** An error result without a failure object (a server without the extension). */
function legacyTool(): ScriptedTool {
  return {
    name: 'legacy_error',
    description: 'An error result without a failure object (a server without the extension).',
    annotations: IDEMPOTENT,
    answer: (attempt) => ({
      content: [{ type: 'text', text: `legacy failure, attempt ${attempt}` }],
      isError: true,
    }),
  };
}

/** One case of `check proxy`: what the upstream answers, and what must reach the client. */
export interface ProxyCase {
  id: string;
  rules: string[];
  annotations: Record<string, unknown> | undefined;
  /** What the upstream answers to tools/call, exactly. */
  result: unknown;
  expect:
    | { forwarded: 'unchanged'; upstreamCalls: number }
    | { forwarded: 'own-failure'; ownFailure: OwnFailureExpectation };
}

/** What an intermediary's own failure object must say (conformance/intermediary-cases.json). */
export interface OwnFailureExpectation {
  class: string;
  codes: string[];
  retryable: boolean;
}

/** Cases of this checker besides the vectors: values a relay that re-encodes can get wrong. */
export const EXTRA_PROXY_CASES: readonly ProxyCase[] = Object.freeze([
  {
    id: 'preserve-nested-unicode-meta',
    rules: ['TF-PROXY-PRESERVE'],
    annotations: { idempotentHint: true },
    expect: { forwarded: 'unchanged', upstreamCalls: 1 },
    result: {
      content: [{ type: 'text', text: 'Zeitüberschreitung' }],
      isError: true,
      _meta: {
        'zz.example/первый': { 'ключ 😀': ['a', 1, -2.5, 1e-7, true, false, null, {}, []] },
        [TOOL_FAILURE_META_KEY]: {
          code: 'retryable_transient_error',
          class: 'reliability',
          retryable: false,
          correlationId: 'ü-\u2028-"quoted"-\\-\t-😀',
          agentGuidance: 'Réessayez plus tard.',
          'x-nested': { deep: { deeper: { deepest: [[['x']]] } } },
        },
        'com.example/empty': '',
        'com.example/big': 9007199254740991,
      },
    },
  },
  {
    id: 'preserve-many-unknown-meta-keys',
    rules: ['TF-PROXY-PRESERVE'],
    annotations: undefined,
    expect: { forwarded: 'unchanged', upstreamCalls: 1 },
    result: {
      content: [{ type: 'text', text: 'denied' }],
      isError: true,
      _meta: {
        'org.example/b': 2,
        'org.example/a': 1,
        'org.example/progress': 'not-a-progress-token',
        [TOOL_FAILURE_META_KEY]: {
          class: 'governance',
          code: 'policy_blocked',
          correlationId: 'pol-0001',
        },
        'org.example/c': { z: 1, y: 2, x: 3 },
      },
    },
  },
]);

/**
 * The proxy cases from conformance/intermediary-cases.json (its parsed `cases`) that a scripted
 * upstream can play (answer: result), plus `EXTRA_PROXY_CASES`. Each case is a tool named by its id.
 */
export function proxyCases(vectorCases: readonly unknown[]): ProxyCase[] {
  const out: ProxyCase[] = [];
  for (const c of vectorCases) {
    if (!isRecord(c) || typeof c.id !== 'string' || !isRecord(c.upstream)) continue;
    if (c.upstream.answer !== 'result' || !isRecord(c.expect)) continue;
    const tool = isRecord(c.tool) ? c.tool : {};
    const annotations = isRecord(tool.annotations) ? tool.annotations : undefined;
    const rules = Array.isArray(c.rules) ? c.rules.filter((r) => typeof r === 'string') : [];
    const e = c.expect;
    let expect: ProxyCase['expect'];
    if (e.forwarded === 'unchanged') {
      expect = {
        forwarded: 'unchanged',
        upstreamCalls: typeof e.upstreamCalls === 'number' ? e.upstreamCalls : 1,
      };
    } else if (e.forwarded === 'own-failure' && isRecord(e.ownFailure)) {
      const o = e.ownFailure;
      expect = {
        forwarded: 'own-failure',
        ownFailure: {
          class: typeof o.class === 'string' ? o.class : 'reliability',
          codes: Array.isArray(o.codes) ? o.codes.filter((x) => typeof x === 'string') : [],
          retryable: o.retryable === true,
        },
      };
    } else {
      continue;
    }
    out.push({ id: c.id, rules, annotations, result: c.upstream.result, expect });
  }
  return [...out, ...EXTRA_PROXY_CASES];
}

/** The upstream of `check proxy`: one tool per case, answering the case's result every time. */
export function proxyScript(cases: readonly ProxyCase[]): ScriptedTool[] {
  return cases.map((c) => ({
    name: c.id,
    description: `check proxy case ${c.id}`,
    ...(c.annotations === undefined ? {} : { annotations: c.annotations }),
    answer: () => c.result,
  }));
}
