import { describe, expect, it } from 'vitest';
import { formatServerCheck } from '../../src/check/format.js';
import { ScenarioError, parseCallOption, parseScenario } from '../../src/check/scenario.js';
import {
  checkServerOutcomes,
  type CallAnswer,
  type CallOutcome,
  type RuleStatus,
  type ServerCheckReport,
} from '../../src/check/server.js';
import {
  TOOL_FAILURE_META_KEY as KEY,
  TOOL_FAILURE_RULES,
} from '../../../tool-failure/src/index.js';

const TRACE_A = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACE_B = '0af7651916cd43dd8448eb211c80319c';

function failed(failure: unknown, extra: Record<string, unknown> = {}): CallAnswer {
  return {
    kind: 'result',
    result: {
      isError: true,
      content: [{ type: 'text', text: 'no' }],
      _meta: { [KEY]: failure },
      ...extra,
    },
  };
}

function call(answer: CallAnswer, args: Record<string, unknown> = {}, tool = 'tool'): CallOutcome {
  return { tool, arguments: args, answer };
}

const good = (correlationId: string, more: Record<string, unknown> = {}) => ({
  class: 'capability',
  code: 'invalid_input',
  correlationId,
  ...more,
});

function status(report: ServerCheckReport, rule: string): RuleStatus | undefined {
  return report.rules.find((r) => r.rule === rule)?.status;
}

describe('checkServerOutcomes', () => {
  it('passes valid failure objects with distinct opaque correlationIds', () => {
    const report = checkServerOutcomes([
      call(failed(good(TRACE_A)), { id: 'BK-1' }),
      call(
        failed(
          good(TRACE_B, {
            class: 'reliability',
            code: 'retryable_transient_error',
            retryable: true,
            retryNotBefore: 1_800_000_000_000,
          }),
        ),
      ),
      call({ kind: 'result', result: { content: [{ type: 'text', text: 'ok' }] } }),
    ]);
    expect(report.verdict).toBe('pass');
    expect(report.rules.filter((r) => r.status === 'fail')).toEqual([]);
    for (const id of [
      'TF-PLACEMENT',
      'TF-META-KEY',
      'TF-CORRELATION-UNIQUE',
      'TF-CORRELATION-OPAQUE',
    ])
      expect(status(report, id), id).toBe('pass');
    expect(status(report, 'TF-RETRYABLE-TYPE')).toBe('pass');
    // No failure object had agentGuidance: its rule was not exercised.
    expect(status(report, 'TF-GUIDANCE-TYPE')).toBe('not exercised');
    expect(report).toMatchObject({
      calls: 3,
      errorResults: 2,
      failureObjects: 2,
      bareErrorResults: 0,
    });
  });

  it('has a row for every rule readToolFailure can report, and no other source of rule ids', () => {
    const report = checkServerOutcomes([]);
    const ids = report.rules.map((r) => r.rule);
    for (const rule of Object.values(TOOL_FAILURE_RULES)) expect(ids).toContain(rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(report.rules.every((r) => r.status === 'not exercised')).toBe(true);
    expect(report.verdict).toBe('pass');
  });

  it('a JSON-RPC error carrying a toolFailure in its data or message fails TF-PLACEMENT', () => {
    const report = checkServerOutcomes([
      call({
        kind: 'rpc-error',
        code: -32603,
        message: 'blocked',
        data: { _meta: { [KEY]: good(TRACE_A) } },
      }),
      call({
        kind: 'rpc-error',
        code: -32000,
        message: `failed: {"${KEY}":{"class":"governance"}}`,
      }),
      // A protocol error with no failure object is not a placement problem.
      call({ kind: 'rpc-error', code: -32602, message: 'Unknown tool' }),
    ]);
    const placement = report.rules.find((r) => r.rule === 'TF-PLACEMENT');
    expect(placement?.status).toBe('fail');
    expect(placement?.violations.map((v) => v.call)).toEqual([0, 1]);
    expect(placement?.violations[0]?.message).toMatch(/in its data/);
    expect(placement?.violations[1]?.message).toMatch(/in its message/);
    expect(report.verdict).toBe('fail');
  });

  it('reports each problem under the rule id readToolFailure gives it', () => {
    const report = checkServerOutcomes([
      call(failed(good(TRACE_A, { retryable: 'yes' }))),
      call(failed({ code: 'invalid_input', correlationId: TRACE_B })),
      call(
        failed({
          class: 'governance',
          code: 'invalid_input',
          correlationId: '0af7651916cd43dd8448eb211c80319d',
        }),
      ),
      call(failed(good('', { agentGuidance: 7 }))),
      call({
        kind: 'result',
        result: { content: [], _meta: { [KEY]: good('5bf92f3577b34da6a3ce929d0e0e4736') } },
      }),
      call(failed('a string')),
    ]);
    expect(status(report, 'TF-RETRYABLE-TYPE')).toBe('fail');
    expect(status(report, 'TF-CLASS-REQUIRED')).toBe('fail');
    expect(status(report, 'TF-CODE-CLASS')).toBe('fail');
    expect(status(report, 'TF-CORRELATION-REQUIRED')).toBe('fail');
    expect(status(report, 'TF-GUIDANCE-TYPE')).toBe('fail');
    expect(status(report, 'TF-ONLY-ON-ERROR')).toBe('fail');
    expect(status(report, 'TF-FAILURE-OBJECT')).toBe('fail');
    expect(status(report, 'TF-CLASS-ENUM')).toBe('pass');
    const retryable = report.rules.find((r) => r.rule === 'TF-RETRYABLE-TYPE');
    expect(retryable?.violations).toEqual([
      { call: 0, tool: 'tool', message: expect.stringMatching(/boolean/) },
    ]);
  });

  it('a correlationId two calls share fails TF-CORRELATION-UNIQUE', () => {
    const report = checkServerOutcomes([
      call(failed(good(TRACE_A)), {}, 'a'),
      call(failed(good(TRACE_B)), {}, 'b'),
      call(failed(good(TRACE_A)), {}, 'c'),
    ]);
    const unique = report.rules.find((r) => r.rule === 'TF-CORRELATION-UNIQUE');
    expect(unique?.status).toBe('fail');
    expect(unique?.violations).toEqual([
      { call: 2, tool: 'c', message: expect.stringMatching(/call 0 \(a\)/) },
    ]);
  });

  it('one correlationId alone does not exercise uniqueness', () => {
    const report = checkServerOutcomes([call(failed(good(TRACE_A)))]);
    expect(status(report, 'TF-CORRELATION-UNIQUE')).toBe('not exercised');
    expect(status(report, 'TF-CORRELATION-OPAQUE')).toBe('pass');
  });

  it('a correlationId equal to or containing a string argument of the call fails TF-CORRELATION-OPAQUE', () => {
    const report = checkServerOutcomes([
      call(failed(good('user-alice@example.com')), { email: 'alice@example.com' }),
      call(failed(good('BK-7731')), { nested: { list: ['BK-7731'] } }),
      // Short values only count when equal: "4b" turns up in hex IDs by chance.
      call(failed(good(TRACE_A)), { prefix: '4bf', n: 4 }),
      // Another call's argument is not this call's request data.
      call(failed(good(TRACE_B)), { id: TRACE_A }),
    ]);
    const opaque = report.rules.find((r) => r.rule === 'TF-CORRELATION-OPAQUE');
    expect(opaque?.status).toBe('fail');
    expect(opaque?.violations.map((v) => v.call)).toEqual([0, 1]);
    expect(opaque?.checked).toBe(4);
  });

  it('error results without any failure object: the extension is not implemented', () => {
    const bare: CallAnswer = {
      kind: 'result',
      result: { isError: true, content: [{ type: 'text', text: 'bad' }] },
    };
    const report = checkServerOutcomes([
      call(bare),
      call(bare),
      call({ kind: 'no-answer', detail: 'timed out' }),
    ]);
    expect(report.extensionImplemented).toBe(false);
    expect(report.bareErrorResults).toBe(2);
    expect(report.unanswered).toBe(1);
    expect(report.verdict).toBe('fail');
    expect(status(report, 'TF-META-KEY')).toBe('fail');
    expect(formatServerCheck(report)).toContain(
      'the extension is not implemented: 2 error results carried no failure object',
    );
  });

  it('the declaration: declared, not declared, declared but not implemented (a bare error result)', () => {
    const seen = (declared: boolean) => ({
      declared,
      looked: ['initialize', 'server/discover (2026-07-28)'],
      notes: [],
    });
    const bare: CallAnswer = { kind: 'result', result: { isError: true, content: [] } };
    const implemented = [call(failed(good(TRACE_A))), call(failed(good(TRACE_B)))];
    expect(checkServerOutcomes(implemented, seen(true)).declaration.status).toBe('declared');
    expect(checkServerOutcomes(implemented, seen(false)).declaration.status).toBe('not declared');
    // No declaration seen at all: not declared.
    expect(checkServerOutcomes(implemented).declaration).toEqual({
      status: 'not declared',
      declared: false,
      looked: [],
      notes: [],
    });
    const broken = checkServerOutcomes([...implemented, call(bare)], seen(true));
    expect(broken.declaration.status).toBe('declared but not implemented');
    expect(broken.verdict).toBe('fail');
    expect(formatServerCheck(broken)).toContain(
      'extension: declared but not implemented (looked at initialize, server/discover (2026-07-28))',
    );
    const noted = checkServerOutcomes(implemented, {
      declared: false,
      looked: ['initialize'],
      notes: ['2026-07-28 not offered: no'],
    });
    expect(formatServerCheck(noted)).toContain(
      'extension: not declared (looked at initialize)\n  2026-07-28 not offered: no\n',
    );
  });

  it('an error result without a failure object beside ones with it fails TF-META-KEY only', () => {
    const report = checkServerOutcomes([
      call(failed(good(TRACE_A))),
      call({ kind: 'result', result: { isError: true, content: [] } }),
    ]);
    expect(report.extensionImplemented).toBe(true);
    expect(report.rules.filter((r) => r.status === 'fail').map((r) => r.rule)).toEqual([
      'TF-META-KEY',
    ]);
  });

  it('a _meta that is not an object fails TF-META-OBJECT', () => {
    const report = checkServerOutcomes([
      call({ kind: 'result', result: { isError: true, content: [], _meta: 'x' } }),
    ]);
    expect(status(report, 'TF-META-OBJECT')).toBe('fail');
  });
});

describe('formatServerCheck', () => {
  it('prints one line per rule, then what failed, then the verdict', () => {
    const text = formatServerCheck(
      checkServerOutcomes([call(failed(good(TRACE_A, { retryable: 1 })), {}, 'search')]),
    );
    expect(text).toMatch(/^TF-PLACEMENT\s+pass \(1 checked\)$/m);
    expect(text).toMatch(/^TF-GUIDANCE-TYPE\s+not exercised$/m);
    expect(text).toMatch(/^TF-RETRYABLE-TYPE: call 0 \(search\): /m);
    expect(text.trimEnd().split('\n').at(-1)).toBe('FAIL: TF-RETRYABLE-TYPE');
  });

  it('says when no call failed, so that nothing was exercised', () => {
    const text = formatServerCheck(
      checkServerOutcomes([call({ kind: 'result', result: { content: [] } })]),
    );
    expect(text).toContain('no call failed');
    expect(text.trimEnd().split('\n').at(-1)).toBe('PASS');
  });
});

describe('scenarios', () => {
  it('parses a scenario file and --call options', () => {
    expect(
      parseScenario('{"calls":[{"tool":"a"},{"tool":"b","arguments":{"x":1}}]}', 's.json'),
    ).toEqual([
      { tool: 'a', arguments: {} },
      { tool: 'b', arguments: { x: 1 } },
    ]);
    expect(parseCallOption('echo')).toEqual({ tool: 'echo', arguments: {} });
    expect(parseCallOption('echo={"message":42}')).toEqual({
      tool: 'echo',
      arguments: { message: 42 },
    });
  });

  it.each([
    ['not json', /not JSON/],
    ['{"tools":[]}', /expected \{"calls"/],
    ['{"calls":[{"tool":""}]}', /calls\[0\]\.tool/],
    ['{"calls":[{"tool":"a","arguments":[1]}]}', /calls\[0\]\.arguments/],
  ])('rejects the scenario %s in one line', (text, message) => {
    expect(() => parseScenario(text, 's.json')).toThrow(ScenarioError);
    expect(() => parseScenario(text, 's.json')).toThrow(message);
  });

  it.each([
    ['=1', /missing the tool name/],
    ['echo={', /not JSON/],
    ['echo=[1]', /JSON object/],
  ])('rejects --call %s', (spec, message) => {
    expect(() => parseCallOption(spec)).toThrow(message);
  });
});
