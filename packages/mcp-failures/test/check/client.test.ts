import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_RULES, PROXY_RULES } from '../../src/check/rules.js';
import {
  NOT_BEFORE_TOLERANCE_MS,
  checkClientSession,
  sameJson,
  type PrintedResult,
} from '../../src/check/client.js';
import {
  NOT_BEFORE_MS,
  clientScript,
  createScriptedHandler,
  type ScriptedCall,
  type ScriptedTool,
} from '../../src/check/scripted.js';

const T0 = 1_800_000_000_000;
const tools = clientScript('t');
const byName = new Map(tools.map((t) => [t.name, t]));

/** A session where `tool` was called at the given times (ms after T0), answered by the script. */
function calls(plan: Record<string, number[]>): ScriptedCall[] {
  const out: ScriptedCall[] = [];
  for (const [name, times] of Object.entries(plan)) {
    const tool = byName.get(name) as ScriptedTool;
    times.forEach((t, i) =>
      out.push({
        tool: name,
        attempt: i + 1,
        receivedAt: T0 + t,
        arguments: {},
        result: tool.answer(i + 1, T0 + t),
      }),
    );
  }
  return out;
}

/** Every tool called once, except what `plan` says. */
function session(plan: Record<string, number[]> = {}): ScriptedCall[] {
  return calls({ ...Object.fromEntries(tools.map((t) => [t.name, [0]])), ...plan });
}

const lastResults = (received: ScriptedCall[]): PrintedResult[] => {
  const last = new Map<string, unknown>();
  for (const c of received) last.set(c.tool, c.result);
  return [...last].map(([tool, result]) => ({ tool, result }));
};

const status = (report: ReturnType<typeof checkClientSession>, id: string) =>
  report.rules.find((r) => r.rule === id)?.status;

describe('checkClientSession', () => {
  it('passes a client that calls each tool once and honours retryNotBefore', () => {
    const received = session({
      fetch_quote: [0, NOT_BEFORE_MS],
      lookup_status: [0, NOT_BEFORE_MS + 10, 2 * NOT_BEFORE_MS + 30],
    });
    const report = checkClientSession(tools, received, lastResults(received));
    expect(report.verdict).toBe('pass');
    for (const rule of Object.values(CLIENT_RULES)) expect(status(report, rule.id)).toBe('pass');
    expect(report.notCalled).toEqual([]);
  });

  it('fails TF-CLIENT-NO-RETRY-GOVERNANCE when a governance failure is retried', () => {
    const received = session({ read_calendar: [0, 5] });
    const report = checkClientSession(tools, received, lastResults(received));
    expect(report.verdict).toBe('fail');
    expect(status(report, 'TF-CLIENT-NO-RETRY-GOVERNANCE')).toBe('fail');
    expect(status(report, 'TF-CLIENT-NO-RETRY-CAPABILITY')).toBe('pass');
    const row = report.rules.find((r) => r.rule === 'TF-CLIENT-NO-RETRY-GOVERNANCE');
    expect(row?.violations[0]).toMatchObject({ on: 'read_calendar' });
  });

  it.each([
    ['export_report', 'TF-CLIENT-NO-RETRY-CAPABILITY'],
    ['convert_units', 'TF-CLIENT-DISPATCH-ON-CLASS'],
    ['approve_payment', 'TF-CLIENT-GUIDANCE-AS-DATA'],
    ['search_index', 'TF-CLIENT-RETRY-REQUIRES-RETRYABLE'],
    ['send_message', 'TF-CLIENT-RETRY-REQUIRES-IDEMPOTENT'],
    ['create_ticket', 'TF-CLIENT-RETRY-REQUIRES-IDEMPOTENT'],
    ['malformed_class', 'TF-CLIENT-MALFORMED-NOT-RETRIED'],
    ['malformed_no_correlation', 'TF-CLIENT-MALFORMED-NOT-RETRIED'],
    ['malformed_retryable', 'TF-CLIENT-MALFORMED-NOT-RETRIED'],
  ])('a retry of %s fails %s', (tool, rule) => {
    const received = session({ [tool]: [0, 700] });
    const report = checkClientSession(tools, received, lastResults(received));
    expect(status(report, rule)).toBe('fail');
    expect(report.verdict).toBe('fail');
  });

  it('allows a retry of an error without a failure object (an unaware client, as today)', () => {
    const received = session({ legacy_error: [0, 10] });
    const report = checkClientSession(tools, received, lastResults(received));
    expect(report.verdict).toBe('pass');
  });

  it('fails TF-CLIENT-NOT-BEFORE for a retry before retryNotBefore, beyond the tolerance only', () => {
    const early = session({ fetch_quote: [0, NOT_BEFORE_MS - NOT_BEFORE_TOLERANCE_MS - 1] });
    const report = checkClientSession(tools, early, lastResults(early));
    expect(status(report, 'TF-CLIENT-NOT-BEFORE')).toBe('fail');
    expect(
      report.rules.find((r) => r.rule === 'TF-CLIENT-NOT-BEFORE')?.violations[0]?.message,
    ).toMatch(/before retryNotBefore/);
    const atTolerance = session({ fetch_quote: [0, NOT_BEFORE_MS - NOT_BEFORE_TOLERANCE_MS] });
    expect(
      status(
        checkClientSession(tools, atTolerance, lastResults(atTolerance)),
        'TF-CLIENT-NOT-BEFORE',
      ),
    ).toBe('pass');
  });

  it('fails TF-CLIENT-PRESERVE-FAILURE when the caller gets an earlier attempt, a changed object, or nothing', () => {
    const received = session({ lookup_status: [0, 600, 1200] });
    const printed = lastResults(received).map((p) =>
      p.tool === 'lookup_status'
        ? { tool: p.tool, result: received.find((c) => c.tool === 'lookup_status')?.result }
        : p,
    );
    const report = checkClientSession(tools, received, printed);
    const row = report.rules.find((r) => r.rule === 'TF-CLIENT-PRESERVE-FAILURE');
    expect(row?.status).toBe('fail');
    expect(row?.violations[0]?.message).toMatch(/attempt 1, not of the last one \(3\)/);

    const changed = lastResults(session()).map((p) =>
      p.tool === 'export_report'
        ? {
            tool: p.tool,
            result: {
              isError: true,
              _meta: {
                'io.modelcontextprotocol/toolFailure': {
                  class: 'capability',
                  code: 'x',
                  correlationId: 'mine',
                },
              },
            },
          }
        : p,
    );
    expect(
      status(checkClientSession(tools, session(), changed), 'TF-CLIENT-PRESERVE-FAILURE'),
    ).toBe('fail');

    const missing = lastResults(session()).filter((p) => p.tool !== 'read_calendar');
    expect(
      status(checkClientSession(tools, session(), missing), 'TF-CLIENT-PRESERVE-FAILURE'),
    ).toBe('fail');
  });

  it('fails TF-CLIENT-UNAWARE-UNCHANGED when a bare error reaches the caller changed', () => {
    const printed = lastResults(session()).map((p) =>
      p.tool === 'legacy_error' ? { tool: p.tool, result: { isError: true, content: [] } } : p,
    );
    expect(
      status(checkClientSession(tools, session(), printed), 'TF-CLIENT-UNAWARE-UNCHANGED'),
    ).toBe('fail');
  });

  it('leaves the printing rules not exercised when the client prints nothing, and fails when no tool was called', () => {
    const report = checkClientSession(tools, session(), []);
    expect(status(report, 'TF-CLIENT-PRESERVE-FAILURE')).toBe('not exercised');
    expect(status(report, 'TF-CLIENT-NO-RETRY-GOVERNANCE')).toBe('pass');
    expect(report.verdict).toBe('pass');
    const none = checkClientSession(tools, [], []);
    expect(none.verdict).toBe('fail');
    expect(none.notCalled).toHaveLength(tools.length);
    expect(none.rules.every((r) => r.status === 'not exercised')).toBe(true);
  });

  it('sameJson ignores key order only', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
  });
});

describe('the scripted server', () => {
  it('lists the tools with their annotations and records each call with its time', () => {
    const received: ScriptedCall[] = [];
    let now = T0;
    const handle = createScriptedHandler(
      tools,
      (c) => received.push(c),
      () => now,
    );
    expect(
      handle({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26' },
      }),
    ).toMatchObject({
      result: { protocolVersion: '2025-03-26', capabilities: { tools: {} } },
    });
    expect(handle({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    const list = handle({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) as {
      result: { tools: { name: string; annotations?: unknown }[] };
    };
    expect(list.result.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    expect(list.result.tools.find((t) => t.name === 'create_ticket')?.annotations).toBeUndefined();
    const first = handle({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'fetch_quote', arguments: {} },
    }) as { result: { _meta: Record<string, { retryNotBefore: number; correlationId: string }> } };
    expect(first.result._meta['io.modelcontextprotocol/toolFailure']?.retryNotBefore).toBe(
      T0 + NOT_BEFORE_MS,
    );
    now += 600;
    expect(
      handle({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'fetch_quote' } }),
    ).toMatchObject({
      result: { content: [{ type: 'text', text: 'quote: 42' }] },
    });
    expect(received.map((c) => [c.attempt, c.receivedAt])).toEqual([
      [1, T0],
      [2, T0 + 600],
    ]);
    expect(
      handle({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'nope' } }),
    ).toMatchObject({
      error: { code: -32602 },
    });
  });

  it('gives every attempt its own correlationId, and every run its own', () => {
    const a = clientScript('run-a').find((t) => t.name === 'lookup_status') as ScriptedTool;
    const b = clientScript('run-b').find((t) => t.name === 'lookup_status') as ScriptedTool;
    const cid = (r: unknown) => JSON.stringify(r).match(/"correlationId":"([^"]+)"/)?.[1];
    expect(new Set([cid(a.answer(1, T0)), cid(a.answer(2, T0)), cid(b.answer(1, T0))]).size).toBe(
      3,
    );
  });
});

describe('rule ids', () => {
  it('every client and intermediary rule the checkers report has its row in docs/conformance.md', () => {
    const doc = readFileSync(new URL('../../../../docs/conformance.md', import.meta.url), 'utf8');
    for (const rule of [...Object.values(CLIENT_RULES), ...Object.values(PROXY_RULES)])
      expect(doc, rule.id).toMatch(new RegExp(`^\\|.*\\| \`${rule.id}\` \\|`, 'm'));
  });
});

describe('docs/conformance-kit.md', () => {
  const kit = readFileSync(new URL('../../../../docs/conformance-kit.md', import.meta.url), 'utf8');

  it('lists every tool of the client script, the retryNotBefore lead and the tolerance', () => {
    for (const tool of tools) expect(kit, tool.name).toContain(`\`${tool.name}\``);
    expect(kit).toContain(`\`retryNotBefore\` ${NOT_BEFORE_MS} ms ahead`);
    expect(kit).toContain(`${NOT_BEFORE_TOLERANCE_MS} ms are allowed`);
  });

  it('names every client and intermediary rule the checkers report', () => {
    for (const rule of [...Object.values(CLIENT_RULES), ...Object.values(PROXY_RULES)])
      expect(kit, rule.id).toContain(`\`${rule.id}\``);
  });
});
