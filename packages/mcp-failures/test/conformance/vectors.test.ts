/**
 * The language-neutral vectors of packages/mcp-failures/conformance/ (docs/conformance-vectors.md), run against this
 * package: each file is valid against packages/mcp-failures/conformance/vectors.schema.json, each failure object is
 * read by readToolFailure(), each client scenario is driven through decide() on the scenario's
 * clock and through withToolRetry on a fake clock, and each intermediary case goes through the
 * real proxy. So every vector is proven.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../../../proxy/src/index.js';
import type { ToolFailureProxy } from '../../../proxy/src/index.js';
import { exponentialDelay } from '../../../../src/retry/backoff.js';
import { decide, withToolRetry } from '../../../../src/retry/index.js';
import type {
  BackoffOptions,
  RetryBudget,
  RetryClock,
  ToolRetryAnnotations,
} from '../../../../src/retry/index.js';
import { TOOL_FAILURE_RULES, readToolFailure } from '../../../tool-failure/src/index.js';
import { scriptedUpstream, type Answer } from '../../../proxy/test/harness.js';

const root = new URL('../../../../', import.meta.url);
const readJson = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(path, root), 'utf8')) as unknown;
const readText = (path: string): string => readFileSync(new URL(path, root), 'utf8');

type Json = unknown;
interface Problem {
  rule: string;
  severity: 'error' | 'warning';
}
interface FileHead {
  $schema: string;
  version: number;
  kind: string;
  metaKey: string;
}
interface FailureVector {
  id: string;
  side: 'valid' | 'violating';
  rules: string[];
  failure?: Json;
  result?: Json;
  expect: { status: 'absent' | 'valid' | 'invalid'; problems: Problem[] };
}
interface FailureObjectsFile extends FileHead {
  resultTemplate: Record<string, Json>;
  vectors: FailureVector[];
}
interface Tool {
  name: string;
  annotations: ToolRetryAnnotations | null;
}
interface Step {
  attempt: number;
  sentAtMs: number;
  receivedAtMs: number;
  action: string;
  reason?: string;
  delayMs?: number;
  delaySource?: string;
  notBeforeMs?: number;
}
interface Scenario {
  id: string;
  rules: string[];
  tool: Tool;
  client: {
    limits: { maxAttempts: number; maxElapsedMs: number };
    backoffMs?: number[];
  };
  attempts: Array<{
    durationMs: number;
    failure?: Json;
    result?: Json;
    retryBudgetAllows?: boolean;
  }>;
  expect: { steps: Step[]; attempts: number; outcome: string; returnedAttempt: number };
}
interface ClientScenariosFile extends FileHead {
  clock: { startEpochMs: number };
  resultTemplate: Record<string, Json>;
  scenarios: Scenario[];
}
interface OwnFailure {
  isError: true;
  status: 'valid';
  class: string;
  codes: string[];
  retryable: boolean;
  correlationId: 'own';
}
interface IntermediaryCase {
  id: string;
  rules: string[];
  tool: Tool;
  upstream: { answer: 'result' | 'unreachable' | 'close' | 'hang'; result?: Json };
  expect:
    | { forwarded: 'unchanged'; upstreamCalls: number }
    | { forwarded: 'own-failure'; ownFailure: OwnFailure };
}
interface IntermediaryCasesFile extends FileHead {
  cases: IntermediaryCase[];
}

const FILES = {
  'failure-objects': 'packages/mcp-failures/conformance/failure-objects.json',
  'client-scenarios': 'packages/mcp-failures/conformance/client-scenarios.json',
  'intermediary-cases': 'packages/mcp-failures/conformance/intermediary-cases.json',
} as const;
const schema = readJson('packages/mcp-failures/conformance/vectors.schema.json') as object;
const objects = readJson(FILES['failure-objects']) as FailureObjectsFile;
const scenarios = readJson(FILES['client-scenarios']) as ClientScenariosFile;
const intermediary = readJson(FILES['intermediary-cases']) as IntermediaryCasesFile;

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const byRule = (a: Problem, b: Problem): number =>
  a.rule === b.rule ? a.severity.localeCompare(b.severity) : a.rule.localeCompare(b.rule);

/** The result a vector stands for: `result` as given, or `failure` inside the template. */
function resultOf(
  vector: { failure?: Json; result?: Json },
  template: Record<string, Json>,
  metaKey: string,
): Json {
  if ('result' in vector) return clone(vector.result);
  return { ...clone(template), _meta: { [metaKey]: clone(vector.failure) } };
}

const metaText = (r: Json): string | undefined =>
  JSON.stringify((r as { _meta?: Json } | null | undefined)?._meta);

/**
 * What breaks "unchanged": the received result must be the same JSON value as the one the
 * upstream sent, and its `_meta` must serialise to the same text (keys, their order, values).
 */
function unchangedViolations(sent: Json, received: Json): string[] {
  const out: string[] = [];
  if (!isDeepStrictEqual(received, sent)) out.push('the result is not the one the upstream sent');
  if (metaText(received) !== metaText(sent)) out.push('_meta is not the one the upstream sent');
  return out;
}

/** What breaks an `ownFailure` expectation. */
function ownFailureViolations(own: OwnFailure, received: Json): string[] {
  const out: string[] = [];
  if ((received as { isError?: unknown } | undefined)?.isError !== own.isError)
    out.push('isError is not true');
  const reading = readToolFailure(received);
  if (reading.status !== own.status) return [...out, `the failure object is ${reading.status}`];
  if (reading.status !== 'valid') return out;
  if (reading.problems.length > 0) out.push('the failure object has problems');
  const f = reading.failure;
  if (f.class !== own.class) out.push(`class is ${f.class}`);
  if (!own.codes.includes(f.code)) out.push(`code ${f.code} is not one of ${own.codes.join(', ')}`);
  if (own.retryable ? f.retryable !== true : f.retryable === true)
    out.push(`retryable must be ${own.retryable ? 'true' : 'absent or false'}`);
  return out;
}

describe('conformance vectors: files', () => {
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);

  it.each(Object.entries(FILES))('%s is valid against vectors.schema.json', (kind, path) => {
    const file = readJson(path) as FileHead;
    expect(validate(file), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(file.kind).toBe(kind);
    expect(file.$schema).toBe('./vectors.schema.json');
  });

  it('the schema refuses a vector file that breaks it (wrong kind, missing expect)', () => {
    const broken = clone(objects) as unknown as { kind: string; vectors: Array<{ expect?: Json }> };
    delete broken.vectors[0]?.expect;
    expect(validate(broken)).toBe(false);
    expect(validate({ ...clone(scenarios), kind: 'failure-objects' })).toBe(false);
  });

  it('vector ids are unique within each file', () => {
    for (const ids of [
      objects.vectors.map((v) => v.id),
      scenarios.scenarios.map((s) => s.id),
      intermediary.cases.map((c) => c.id),
    ])
      expect(new Set(ids).size).toBe(ids.length);
  });

  it('the files are shipped (package.json files has "conformance") and exported by name', () => {
    const kit = 'packages/mcp-failures/';
    const pkg = readJson(`${kit}package.json`) as { files: string[] };
    expect(pkg.files).toContain('conformance');
    const require = createRequire(import.meta.url);
    for (const path of [`${kit}conformance/vectors.schema.json`, ...Object.values(FILES)])
      expect(require(`@omcp/mcp-failures/${path.slice(kit.length)}`), path).toStrictEqual(
        readJson(path),
      );
  });
});

describe('conformance vectors: failure objects through readToolFailure()', () => {
  it.each(objects.vectors.map((v) => [v.id, v] as const))('%s', (_id, vector) => {
    const input = resultOf(vector, objects.resultTemplate, objects.metaKey);
    const reading = readToolFailure(input);
    expect(reading.status).toBe(vector.expect.status);
    const got = reading.problems.map((p) => ({ rule: p.rule, severity: p.severity }));
    expect(got.sort(byRule)).toStrictEqual([...vector.expect.problems].sort(byRule));
    // Every rule reported is one the vector says it exercises.
    for (const p of vector.expect.problems) expect(vector.rules, vector.id).toContain(p.rule);
    if (reading.status === 'valid' && 'failure' in vector)
      expect(reading.failure).toStrictEqual(vector.failure);
  });
});

describe('conformance vectors: client scenarios through decide()', () => {
  const t0 = scenarios.clock.startEpochMs;
  const isError = (result: Json): boolean =>
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true;

  /** Drives decide() as a client loop would, on the scenario's clock; returns what happened. */
  function run(s: Scenario): { steps: Step[]; outcome: string; returned: Json } {
    const steps: Step[] = [];
    let sentAtMs = 0;
    for (let i = 0; ; i++) {
      const answer = s.attempts[i];
      if (answer === undefined)
        throw new Error(`${s.id}: the client sent more attempts than scripted`);
      const attempt = i + 1;
      const result = resultOf(answer, scenarios.resultTemplate, scenarios.metaKey);
      const receivedAtMs = sentAtMs + answer.durationMs;
      if (!isError(result)) {
        steps.push({ attempt, sentAtMs, receivedAtMs, action: 'success' });
        return { steps, outcome: 'success', returned: result };
      }
      const reading = readToolFailure(result);
      const d = decide(reading, {
        attempt,
        annotations: s.tool.annotations ?? undefined,
        now: t0 + receivedAtMs,
        elapsedMs: receivedAtMs,
        limits: s.client.limits,
        backoffMs: s.client.backoffMs?.[i] ?? 0,
        retryBudgetAllows: answer.retryBudgetAllows ?? true,
      });
      const step: Step = { attempt, sentAtMs, receivedAtMs, action: d.action, reason: d.reason };
      if (d.action !== 'retry') {
        steps.push(step);
        return { steps, outcome: d.action === 'stop' ? d.outcome : 'failure', returned: result };
      }
      step.delayMs = d.delayMs;
      step.delaySource = d.delaySource;
      const rnb = reading.status === 'valid' ? reading.failure.retryNotBefore : undefined;
      if (rnb !== undefined) step.notBeforeMs = rnb - t0;
      steps.push(step);
      sentAtMs = receivedAtMs + d.delayMs;
    }
  }

  it.each(scenarios.scenarios.map((s) => [s.id, s] as const))('%s', (_id, s) => {
    const { steps, outcome, returned } = run(s);
    expect(steps).toStrictEqual(s.expect.steps);
    expect(steps).toHaveLength(s.expect.attempts);
    expect(outcome).toBe(s.expect.outcome);
    const answer = s.attempts[s.expect.returnedAttempt - 1];
    expect(answer).toBeDefined();
    expect(returned).toStrictEqual(resultOf(answer!, scenarios.resultTemplate, scenarios.metaKey));

    // The proposal's invariants, checked apart from the expected values.
    for (const [i, step] of steps.entries()) {
      const next = steps[i + 1];
      if (step.action !== 'retry') {
        expect(next, `${s.id}: nothing after a final action`).toBeUndefined();
        continue;
      }
      const reading = readToolFailure(
        resultOf(s.attempts[i]!, scenarios.resultTemplate, scenarios.metaKey),
      );
      expect(reading.status, `${s.id}: only a valid failure is retried`).toBe('valid');
      if (reading.status !== 'valid') continue;
      expect(reading.failure.class).toBe('reliability');
      expect(reading.failure.retryable).toBe(true);
      expect(s.tool.annotations?.idempotentHint).toBe(true);
      expect(next?.sentAtMs).toBeGreaterThanOrEqual(step.receivedAtMs + (step.delayMs ?? 0));
      if (step.notBeforeMs !== undefined)
        expect(next?.sentAtMs, `${s.id}: never before retryNotBefore`).toBeGreaterThanOrEqual(
          step.notBeforeMs,
        );
    }
  });
});

describe('conformance vectors: client scenarios through withToolRetry (the whole client loop)', () => {
  const t0 = scenarios.clock.startEpochMs;

  /** The scenario's proposed delays as this package's schedule (jitter off); they must fit one. */
  function backoffOf(s: Scenario): BackoffOptions {
    const b = s.client.backoffMs ?? [];
    const initialDelayMs = b[0] ?? 0;
    const multiplier = b.length > 1 && initialDelayMs > 0 ? b[1]! / initialDelayMs : 1;
    const maxDelayMs = Math.max(initialDelayMs, ...b);
    const opts: BackoffOptions = { initialDelayMs, maxDelayMs, multiplier, jitter: 'none' };
    for (const [i, ms] of b.entries())
      expect(exponentialDelay(i + 1, opts), `${s.id}: backoffMs is a capped geometric series`).toBe(
        ms,
      );
    return opts;
  }

  it.each(scenarios.scenarios.map((s) => [s.id, s] as const))('%s', async (_id, s) => {
    // A clock whose timers fire at once, moving time forward by their delay.
    let now = t0;
    const clock: RetryClock = {
      now: () => now,
      setTimeout: (callback, ms) => {
        now += ms;
        queueMicrotask(callback);
        return 0;
      },
      clearTimeout: () => undefined,
    };
    const sent: number[] = [];
    const answered: Json[] = [];
    const client = {
      callTool: async (_params: { name: string }): Promise<unknown> => {
        const answer = s.attempts[sent.length];
        if (answer === undefined) throw new Error(`${s.id}: more attempts than scripted`);
        sent.push(now - t0);
        now += answer.durationMs;
        const result = resultOf(answer, scenarios.resultTemplate, scenarios.metaKey);
        answered.push(result);
        return result;
      },
    };
    const retryBudget: RetryBudget = {
      canRetry: () => s.attempts[sent.length - 1]?.retryBudgetAllows ?? true,
      recordFailure: () => undefined,
      recordSuccess: () => undefined,
    };
    const wrapped = withToolRetry(client, {
      ...s.client.limits,
      backoff: backoffOf(s),
      retryBudget,
      getToolAnnotations: () => s.tool.annotations ?? undefined,
      clock,
    });
    const report = await wrapped.callToolWithRetry({ name: s.tool.name });
    expect(report.attempts).toBe(s.expect.attempts);
    expect(report.outcome).toBe(s.expect.outcome);
    expect(sent).toStrictEqual(s.expect.steps.map((step) => step.sentAtMs));
    // The caller gets that attempt's result itself, unchanged.
    expect(report.result).toBe(answered[s.expect.returnedAttempt - 1]);
    expect(report.result).toStrictEqual(
      resultOf(
        s.attempts[s.expect.returnedAttempt - 1]!,
        scenarios.resultTemplate,
        scenarios.metaKey,
      ),
    );
  });
});

describe('conformance vectors: intermediary cases through the proxy (createToolFailureProxy)', () => {
  let proxy: ToolFailureProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  /** A downstream client that speaks raw JSON-RPC, so it sees the result exactly as sent. */
  async function rawClient(p: ToolFailureProxy): Promise<{
    request(method: string, params: unknown): Promise<JSONRPCMessage>;
  }> {
    const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
    const pending = new Map<number, (m: JSONRPCMessage) => void>();
    clientSide.onmessage = (message) => {
      // What a wire would carry: the message serialised once.
      const wire = JSON.parse(JSON.stringify(message)) as JSONRPCMessage & { id?: number };
      if (typeof wire.id === 'number') pending.get(wire.id)?.(wire);
    };
    await clientSide.start();
    await p.connect(proxySide);
    let next = 0;
    const request = (method: string, params: unknown): Promise<JSONRPCMessage> =>
      new Promise((resolve) => {
        const id = ++next;
        pending.set(id, resolve);
        void clientSide.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
      });
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'vector-client', version: '1' },
    });
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return { request };
  }

  it.each(intermediary.cases.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const toolList = {
      tools: [
        {
          name: c.tool.name,
          inputSchema: { type: 'object' },
          ...(c.tool.annotations === null ? {} : { annotations: c.tool.annotations }),
        },
      ],
    };
    const callAnswer = (): Answer =>
      c.upstream.answer === 'close' || c.upstream.answer === 'hang'
        ? c.upstream.answer
        : { result: clone(c.upstream.result) };
    const upstream = scriptedUpstream((method) =>
      method === 'tools/list' ? { result: toolList } : callAnswer(),
    );
    proxy = createToolFailureProxy({
      upstream:
        c.upstream.answer === 'unreachable'
          ? () => {
              throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
                code: 'ECONNREFUSED',
              });
            }
          : upstream.factory,
      timeoutMs: 300,
    });
    const client = await rawClient(proxy);
    if (c.upstream.answer !== 'unreachable') await client.request('tools/list', {});
    const response = (await client.request('tools/call', {
      name: c.tool.name,
      arguments: {},
    })) as { result?: Json; error?: Json };
    expect(response.error).toBeUndefined();

    expect(
      c.expect.forwarded === 'unchanged'
        ? unchangedViolations(c.upstream.result, response.result)
        : ownFailureViolations(c.expect.ownFailure, response.result),
    ).toStrictEqual([]);
    if (c.expect.forwarded === 'unchanged')
      expect(upstream.requests.filter((r) => r.method === 'tools/call')).toHaveLength(
        c.expect.upstreamCalls,
      );
  });

  // The checks themselves must catch what a careless intermediary does.
  const KEY = intermediary.metaKey;
  const rec = (v: Json): v is Record<string, Json> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const onFailure =
    (change: (failure: Record<string, Json>) => Record<string, Json>) =>
    (r: Json): Json => {
      if (!rec(r) || !rec(r._meta) || !rec(r._meta[KEY])) return r;
      return { ...r, _meta: { ...r._meta, [KEY]: change(r._meta[KEY]) } };
    };
  const BROKEN: Record<string, (r: Json) => Json> = {
    'drops unknown _meta keys': (r) =>
      rec(r) && rec(r._meta) && KEY in r._meta ? { ...r, _meta: { [KEY]: r._meta[KEY] } } : r,
    'strips _meta': (r) => {
      if (!rec(r) || !('_meta' in r)) return r;
      const { _meta: _dropped, ...rest } = r;
      return rest;
    },
    'replaces correlationId with its own': onFailure((f) => ({ ...f, correlationId: 'proxy-1' })),
    'drops unknown failure fields': onFailure((f) =>
      Object.fromEntries(
        Object.entries(f).filter(([k]) =>
          [
            'class',
            'code',
            'retryable',
            'retryNotBefore',
            'correlationId',
            'agentGuidance',
          ].includes(k),
        ),
      ),
    ),
    'sorts the failure object keys': onFailure((f) =>
      Object.fromEntries(Object.entries(f).sort(([a], [b]) => a.localeCompare(b))),
    ),
    'adds a failure object to a bare error': (r) =>
      rec(r) && r.isError === true && !(rec(r._meta) && KEY in r._meta)
        ? {
            ...r,
            _meta: {
              ...(rec(r._meta) ? r._meta : {}),
              [KEY]: { class: 'reliability', code: 'internal_error', correlationId: 'proxy-2' },
            },
          }
        : r,
  };

  it.each(Object.keys(BROKEN))('the unchanged check catches an intermediary that %s', (name) => {
    const broken = BROKEN[name]!;
    let caught = 0;
    for (const c of intermediary.cases) {
      if (c.expect.forwarded !== 'unchanged') continue;
      const out = broken(clone(c.upstream.result));
      if (JSON.stringify(out) === JSON.stringify(c.upstream.result)) continue;
      expect(unchangedViolations(c.upstream.result, out), `${name} on ${c.id}`).not.toStrictEqual(
        [],
      );
      caught += 1;
    }
    expect(caught, `some case exercises "${name}"`).toBeGreaterThan(0);
  });

  it('the own-failure check catches a JSON-RPC error, a failure without correlationId and a retryable lost call', () => {
    for (const c of intermediary.cases) {
      if (c.expect.forwarded !== 'own-failure') continue;
      const own = c.expect.ownFailure;
      const good = {
        content: [],
        isError: true,
        _meta: {
          [KEY]: {
            class: own.class,
            code: own.codes[0],
            retryable: own.retryable,
            correlationId: 'p',
          },
        },
      };
      expect(ownFailureViolations(own, good), c.id).toStrictEqual([]);
      expect(ownFailureViolations(own, undefined), c.id).not.toStrictEqual([]);
      const noId = clone(good) as { _meta: Record<string, Record<string, Json>> };
      delete noId._meta[KEY]!.correlationId;
      expect(ownFailureViolations(own, noId), c.id).not.toStrictEqual([]);
      const flipped = clone(good) as { _meta: Record<string, Record<string, Json>> };
      flipped._meta[KEY]!.retryable = !own.retryable;
      expect(ownFailureViolations(own, flipped), c.id).not.toStrictEqual([]);
    }
  });
});

describe('conformance vectors: every rule has vectors', () => {
  const conformanceDoc = readText('docs/conformance.md');
  const guide = readText('docs/conformance-vectors.md');

  /** Rule ids of docs/conformance.md by section (Data model, Client behaviour, Intermediaries). */
  function docRules(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    let section = '';
    for (const line of conformanceDoc.split('\n')) {
      if (line.startsWith('## ')) section = line.slice(3).trim();
      const m = /^\|.*\|\s*`(TF-[A-Z-]+)`\s*\|\s*`[^`]+`\s*›/.exec(line);
      if (m?.[1] !== undefined) out.set(section, [...(out.get(section) ?? []), m[1]]);
    }
    return out;
  }

  /** Rule ids the guide lists as having no failure-object vector of one side, with the reason. */
  function exempt(): Set<string> {
    const start = guide.indexOf('## Rules without failure-object vectors');
    expect(start, 'the guide has a "Rules without failure-object vectors" section').toBeGreaterThan(
      -1,
    );
    const rest = guide.slice(start + 3);
    const section = rest.slice(0, rest.search(/\n## |$/) + 1 || undefined);
    const ids = new Set<string>();
    for (const line of section.split('\n')) {
      const m = /^\|\s*`(TF-[A-Z-]+)`\s*\|/.exec(line);
      if (m?.[1] !== undefined) ids.add(m[1]);
    }
    return ids;
  }

  const sections = docRules();
  const dataModel = sections.get('Data model') ?? [];
  const client = sections.get('Client behaviour') ?? [];
  const proxy = sections.get('Intermediaries') ?? [];
  const allDoc = new Set([...dataModel, ...client, ...proxy]);

  it('docs/conformance.md has the three sections', () => {
    expect(dataModel.length).toBeGreaterThanOrEqual(17);
    expect(client.length).toBeGreaterThanOrEqual(8);
    expect(proxy.length).toBeGreaterThanOrEqual(3);
  });

  it('every rule of TOOL_FAILURE_RULES and of the data model has a valid and a violating vector, or is listed in the guide', () => {
    const skip = exempt();
    const on = (side: FailureVector['side']): Set<string> =>
      new Set(objects.vectors.filter((v) => v.side === side).flatMap((v) => v.rules));
    const valid = on('valid');
    const violating = on('violating');
    const ids = new Set([...Object.values(TOOL_FAILURE_RULES).map((r) => r.id), ...dataModel]);
    for (const id of ids) {
      if (skip.has(id)) continue;
      expect(valid, `valid-side vector for ${id}`).toContain(id);
      expect(violating, `violating vector for ${id}`).toContain(id);
    }
  });

  it('the guide names every rule id the reader reports, with the severity of each warning', () => {
    for (const r of Object.values(TOOL_FAILURE_RULES)) {
      expect(guide, r.id).toContain(`\`${r.id}\``);
      if (r.severity === 'warning') expect(guide, r.id).toContain(`\`${r.id}\` (warning)`);
    }
  });

  it('every behavioural rule is exercised by a client scenario or an intermediary case', () => {
    const inScenarios = new Set(scenarios.scenarios.flatMap((s) => s.rules));
    for (const id of client) expect(inScenarios, `client scenario for ${id}`).toContain(id);
    const inCases = new Set(intermediary.cases.flatMap((c) => c.rules));
    for (const id of proxy) expect(inCases, `intermediary case for ${id}`).toContain(id);
  });

  it('the guide lists every behavioural rule as covered by the scenario vectors', () => {
    const skip = exempt();
    for (const id of [...client, ...proxy]) expect(skip, id).toContain(id);
  });

  it('every rule id a vector names is a rule of docs/conformance.md', () => {
    const named = [
      ...objects.vectors.flatMap((v) => [...v.rules, ...v.expect.problems.map((p) => p.rule)]),
      ...scenarios.scenarios.flatMap((s) => s.rules),
      ...intermediary.cases.flatMap((c) => c.rules),
      ...exempt(),
    ];
    for (const id of named) expect(allDoc, id).toContain(id);
  });

  it('every severity in the vectors is the one TOOL_FAILURE_RULES gives the rule', () => {
    const severity = new Map<string, string>(
      Object.values(TOOL_FAILURE_RULES).map((r) => [r.id, r.severity]),
    );
    for (const v of objects.vectors)
      for (const p of v.expect.problems)
        expect(p.severity, `${v.id} ${p.rule}`).toBe(severity.get(p.rule));
  });
});
