import { describe, expect, it, vi } from 'vitest';
import {
  circuitOutcomeOf,
  endOfStop,
  failureClassOf,
  resultOutcome,
  thrownOutcome,
  type AttemptOutcome,
} from '../../src/retry/attempt-outcome.js';
import type { RetryDecision } from '../../src/retry/index.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import type { FailureSummary } from '../../packages/tool-failure/src/types.js';
import { fail, transient } from './mcp-v1-pair.js';

const reliability: FailureSummary = {
  class: 'reliability',
  code: 'retryable_transient_error',
  retryable: true,
};
const summarize = (): FailureSummary => ({ ...reliability });

describe('resultOutcome()', () => {
  it('a result without isError: true is a success, with nothing to read', () => {
    const result = { content: [], isError: false };
    const outcome = resultOutcome(result, KEY, false);
    expect(outcome).toEqual({
      kind: 'success',
      result,
      reading: { status: 'absent', problems: [] },
    });
    if (outcome.kind !== 'success') throw new Error('not a success');
    expect(outcome.result).toBe(result);
  });

  it('an isError result is a failure, read under the given _meta key', () => {
    const result = fail(transient({ correlationId: 'c-1' }));
    const outcome = resultOutcome(result, KEY, false);
    expect(outcome).toMatchObject({
      kind: 'failure',
      local: false,
      reading: { status: 'valid' },
      failure: { class: 'reliability', code: 'retryable_transient_error', correlationId: 'c-1' },
    });
    // Under another key the same result carries no failure object: an opaque error.
    expect(resultOutcome(result, 'com.example/other', true)).toMatchObject({
      kind: 'failure',
      local: true,
      reading: { status: 'absent' },
      failure: undefined,
    });
  });

  it('a malformed failure object is a failure with an invalid reading and no failure', () => {
    const result = { content: [], isError: true, _meta: { [KEY]: { class: 'nonsense' } } };
    expect(resultOutcome(result, KEY, false)).toMatchObject({
      kind: 'failure',
      reading: { status: 'invalid' },
      failure: undefined,
    });
  });
});

describe('thrownOutcome()', () => {
  it('classifies a thrown error', () => {
    const error = new Error('reset');
    const classify = vi.fn(summarize);
    expect(thrownOutcome(error, false, classify)).toEqual({
      kind: 'thrown',
      error,
      summary: reliability,
    });
    expect(classify).toHaveBeenCalledWith(error);
  });

  it('an error after the caller aborted is an abort, never classified', () => {
    const error = new Error('aborted');
    const classify = vi.fn(summarize);
    expect(thrownOutcome(error, true, classify)).toEqual({ kind: 'aborted', error });
    expect(classify).not.toHaveBeenCalled();
  });
});

describe('failureClassOf() and circuitOutcomeOf()', () => {
  const cases: Array<[string, AttemptOutcome, string | undefined, string]> = [
    ['success', resultOutcome({ content: [] }, KEY, false), undefined, 'success'],
    ['reliability failure', resultOutcome(fail(transient()), KEY, false), 'reliability', 'failure'],
    [
      'capability failure',
      resultOutcome(fail({ class: 'capability', code: 'invalid_input' }), KEY, false),
      'capability',
      'success',
    ],
    [
      'opaque failure',
      resultOutcome({ isError: true, content: [] }, KEY, false),
      undefined,
      'success',
    ],
    [
      'reliability error',
      thrownOutcome(new Error('x'), false, summarize),
      'reliability',
      'failure',
    ],
    [
      'governance error',
      thrownOutcome(new Error('x'), false, () => ({ class: 'governance', code: 'auth_required' })),
      'governance',
      'success',
    ],
    ['abort', thrownOutcome(new Error('x'), true, summarize), undefined, 'ignored'],
  ];
  for (const [name, outcome, cls, circuit] of cases) {
    it(`${name}: class ${String(cls)}, circuit ${circuit}`, () => {
      expect(failureClassOf(outcome)).toBe(cls);
      expect(circuitOutcomeOf(outcome)).toBe(circuit);
    });
  }
});

describe('endOfStop()', () => {
  const failure = resultOutcome(fail(transient()), KEY, false) as AttemptOutcome & {
    kind: 'failure';
  };
  const error = new Error('reset');
  const thrown = thrownOutcome(error, false, summarize) as AttemptOutcome & { kind: 'thrown' };
  const summary = { ...reliability };
  const exhausted: RetryDecision = {
    action: 'stop',
    reason: 'attempts_exhausted',
    outcome: 'retries_exhausted',
    failure: summary,
  };
  const notRetryable: RetryDecision = {
    action: 'stop',
    reason: 'not_retryable',
    outcome: 'failure',
    failure: summary,
  };
  const surfaced: RetryDecision = {
    action: 'surface',
    reason: 'capability',
    failure: { class: 'capability', code: 'invalid_input' },
  };

  it('a failure ends in the stop outcome, else in failure, without an error', () => {
    expect(endOfStop(failure, exhausted, 3)).toEqual({
      outcome: 'retries_exhausted',
      attempts: 3,
      decision: exhausted,
      failure: summary,
    });
    expect(endOfStop(failure, notRetryable, 1)).toMatchObject({ outcome: 'failure' });
    const end = endOfStop(failure, surfaced, 1);
    expect(end).toMatchObject({ outcome: 'failure', failure: surfaced.failure });
    expect('error' in end).toBe(false);
  });

  it('a thrown error ends in error unless a limit stopped it, and carries the error', () => {
    expect(endOfStop(thrown, exhausted, 2)).toEqual({
      outcome: 'retries_exhausted',
      attempts: 2,
      decision: exhausted,
      failure: summary,
      error,
    });
    expect(endOfStop(thrown, notRetryable, 1)).toMatchObject({ outcome: 'error', error });
    expect(endOfStop(thrown, surfaced, 1)).toMatchObject({ outcome: 'error', error });
    // retryOnThrow off: no decision at all.
    expect(endOfStop(thrown, undefined, 1)).toEqual({
      outcome: 'error',
      attempts: 1,
      decision: undefined,
      failure: undefined,
      error,
    });
  });
});
