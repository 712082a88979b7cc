/**
 * The language-neutral vectors of conformance/ (docs/conformance-vectors.md), run against this
 * package: each file is valid against conformance/vectors.schema.json, each failure object is
 * read by readToolFailure(), each client scenario is driven through decide() on the scenario's
 * clock, and each intermediary case goes through the real proxy. So every vector is proven.
 */
import { readFileSync } from 'node:fs';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../../src/proxy/index.js';
import type { ToolFailureProxy } from '../../src/proxy/index.js';
import { decide } from '../../src/retry/index.js';
import type { ToolRetryAnnotations } from '../../src/retry/index.js';
import { TOOL_FAILURE_RULES, readToolFailure } from '../../src/tool-failure/index.js';
import { scriptedUpstream, type Answer } from '../proxy/harness.js';

const root = new URL('../../', import.meta.url);
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
  'failure-objects': 'conformance/failure-objects.json',
  'client-scenarios': 'conformance/client-scenarios.json',
  'intermediary-cases': 'conformance/intermediary-cases.json',
} as const;
const schema = readJson('conformance/vectors.schema.json') as object;
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

  it('the files are shipped: package.json files has "conformance"', () => {
    const pkg = readJson('package.json') as { files: string[] };
    expect(pkg.files).toContain('conformance');
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

    if (c.expect.forwarded === 'unchanged') {
      // The same value, and `_meta` the same down to its key order (serialisations compared).
      expect(response.result).toStrictEqual(c.upstream.result);
      const metaOf = (r: Json): string | undefined =>
        JSON.stringify((r as { _meta?: Json } | null)?._meta);
      expect(metaOf(response.result)).toBe(metaOf(c.upstream.result));
      expect(upstream.requests.filter((r) => r.method === 'tools/call')).toHaveLength(
        c.expect.upstreamCalls,
      );
      return;
    }
    const own = c.expect.ownFailure;
    const result = response.result as { isError?: unknown };
    expect(result.isError).toBe(own.isError);
    const reading = readToolFailure(result);
    expect(reading.status).toBe(own.status);
    if (reading.status !== 'valid') return;
    expect(reading.problems).toStrictEqual([]);
    expect(reading.failure.class).toBe(own.class);
    expect(own.codes).toContain(reading.failure.code);
    if (own.retryable) expect(reading.failure.retryable).toBe(true);
    else expect(reading.failure.retryable).not.toBe(true);
    expect(reading.failure.correlationId).toMatch(/^\S+$/);
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
