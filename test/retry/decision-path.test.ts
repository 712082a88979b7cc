/**
 * The engine's one decision path on its own: outcomes in, steps out, with a fake clock, a
 * recording budget and a real breaker.
 */
import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resultOutcome, thrownOutcome } from '../../src/retry/attempt-outcome.js';
import { resolveBackoff } from '../../src/retry/backoff.js';
import { createCircuitBreaker, type CircuitBreaker } from '../../src/retry/breaker.js';
import { DecisionPath, type LogicalCall } from '../../src/retry/decision-path.js';
import { systemClock } from '../../src/retry/sleep.js';
import { RetryTelemetry } from '../../src/retry/telemetry.js';
import type { RetryBudget, ToolRetryPolicy } from '../../src/retry/index.js';
import {
  classifyError,
  TOOL_FAILURE_META_KEY as KEY,
} from '../../packages/tool-failure/src/index.js';
import { summaryOfClassification } from '../../packages/tool-failure/src/convert.js';
import { T0, useFakeTime } from './fake-time.js';
import { fail, ok, transient } from './mcp-v1-pair.js';

const idem = { idempotentHint: true };
const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const summarize = (error: unknown) => summaryOfClassification(classifyError(error));
const reset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

interface Recorded extends RetryBudget {
  calls: string[];
}

function recordingBudget(allows = true): Recorded {
  const calls: string[] = [];
  return {
    calls,
    canRetry: () => (calls.push('canRetry'), allows),
    recordFailure: () => void calls.push('failure'),
    recordSuccess: () => void calls.push('success'),
  };
}

function pathOf(
  policy: ToolRetryPolicy,
  budget: RetryBudget | undefined = recordingBudget(),
  breaker?: CircuitBreaker,
): DecisionPath {
  return new DecisionPath({
    policy,
    limits: { maxAttempts: 3, maxElapsedMs: 10_000 },
    backoff: resolveBackoff({ initialDelayMs: 100, multiplier: 2, jitter: 'none' }),
    budget,
    breaker,
    clock: systemClock,
    random: () => 0.5,
    telemetry: new RetryTelemetry(undefined, undefined),
  });
}

function callOf(attempt = 1): LogicalCall {
  return {
    client: { callTool: () => Promise.resolve(ok()) },
    toolName: 'flaky',
    span,
    ctx: trace.setSpan(ROOT_CONTEXT, span),
    start: Date.now(),
    attempt,
    previousBackoff: undefined,
  };
}

describe('DecisionPath', () => {
  beforeEach(() => useFakeTime());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a success ends the call and refunds the budget', async () => {
    const budget = recordingBudget();
    const step = await pathOf({}, budget).next(
      callOf(2),
      resultOutcome(ok(), KEY, false),
      undefined,
    );
    expect(step).toEqual({
      action: 'end',
      end: { outcome: 'success', attempts: 2, decision: undefined, failure: undefined },
    });
    expect(budget.calls).toEqual(['success']);
  });

  it('a retryable failure of an idempotent tool is retried after the backoff', async () => {
    const budget = recordingBudget();
    const annotations = vi.fn(() => idem);
    const call = callOf();
    const step = await pathOf({ getToolAnnotations: annotations }, budget).next(
      call,
      resultOutcome(fail(transient()), KEY, false),
      undefined,
    );
    expect(step).toMatchObject({
      action: 'retry',
      decision: {
        action: 'retry',
        delayMs: 100,
        reason: 'retryable_failure',
        delaySource: 'backoff',
      },
    });
    expect(call.previousBackoff).toBe(100);
    expect(annotations).toHaveBeenCalledWith('flaky');
    // The failure costs a token before the budget is asked.
    expect(budget.calls).toEqual(['failure', 'canRetry']);
  });

  it('a thrown error takes the same path when retryOnThrow is on: same delay, its own reason', async () => {
    const budget = recordingBudget();
    const path = pathOf({ retryOnThrow: true, getToolAnnotations: () => idem }, budget);
    const error = reset();
    const call = callOf(2);
    call.previousBackoff = 100;
    const step = await path.next(call, thrownOutcome(error, false, summarize), undefined);
    expect(step).toMatchObject({
      action: 'retry',
      decision: {
        delayMs: 200,
        reason: 'retryable_error',
        delaySource: 'backoff',
        failure: { class: 'reliability', retryable: true },
      },
    });
    expect(budget.calls).toEqual(['failure', 'canRetry']);
  });

  it('a thrown error is not decided on without retryOnThrow: it ends in error', async () => {
    const budget = recordingBudget();
    const annotations = vi.fn(() => idem);
    const error = reset();
    const step = await pathOf({ getToolAnnotations: annotations }, budget).next(
      callOf(),
      thrownOutcome(error, false, summarize),
      undefined,
    );
    expect(step).toEqual({
      action: 'end',
      end: { outcome: 'error', attempts: 1, decision: undefined, failure: undefined, error },
    });
    expect(annotations).not.toHaveBeenCalled();
    // It still cost budget: the server failed.
    expect(budget.calls).toEqual(['failure']);
  });

  it('a throwing retryOnThrow predicate counts as no', async () => {
    const policy: ToolRetryPolicy = {
      retryOnThrow: () => {
        throw new Error('broken predicate');
      },
      getToolAnnotations: () => idem,
    };
    const step = await pathOf(policy).next(
      callOf(),
      thrownOutcome(reset(), false, summarize),
      undefined,
    );
    expect(step).toMatchObject({ action: 'end', end: { outcome: 'error', decision: undefined } });
  });

  it('the attempt limit ends a failure in retries_exhausted and a thrown error too', async () => {
    const path = pathOf({ retryOnThrow: true, getToolAnnotations: () => idem });
    const failed = await path.next(
      callOf(3),
      resultOutcome(fail(transient()), KEY, false),
      undefined,
    );
    expect(failed).toMatchObject({
      action: 'end',
      end: {
        outcome: 'retries_exhausted',
        attempts: 3,
        decision: { reason: 'attempts_exhausted' },
      },
    });
    const error = reset();
    const thrown = await path.next(callOf(3), thrownOutcome(error, false, summarize), undefined);
    expect(thrown).toMatchObject({
      action: 'end',
      end: { outcome: 'retries_exhausted', decision: { reason: 'attempts_exhausted' }, error },
    });
  });

  it('a capability failure surfaces without asking for annotations or budget', async () => {
    const budget = recordingBudget();
    const annotations = vi.fn(() => idem);
    const result = fail({ class: 'capability', code: 'invalid_input', agentGuidance: 'fix it' });
    const step = await pathOf({ getToolAnnotations: annotations }, budget).next(
      callOf(),
      resultOutcome(result, KEY, false),
      undefined,
    );
    expect(step).toMatchObject({
      action: 'end',
      end: { outcome: 'failure', decision: { action: 'surface', agentGuidance: 'fix it' } },
    });
    expect(annotations).not.toHaveBeenCalled();
    expect(budget.calls).toEqual(['canRetry']);
  });

  it('waits for retryNotBefore when it is later than the backoff', async () => {
    const result = fail(transient({ retryNotBefore: T0 + 2_500 }));
    const step = await pathOf({ getToolAnnotations: () => idem }).next(
      callOf(),
      resultOutcome(result, KEY, false),
      undefined,
    );
    expect(step).toMatchObject({
      action: 'retry',
      decision: { delayMs: 2_500, delaySource: 'retry_not_before' },
    });
  });

  it('an abort ends the call as aborted, costs no budget and is ignored by the circuit', async () => {
    const budget = recordingBudget();
    const breaker = createCircuitBreaker({ failureThreshold: 1 });
    const path = pathOf({}, budget, breaker);
    const admission = path.admit(span, 'flaky');
    expect(admission?.allowed).toBe(true);
    const error = new Error('aborted');
    const step = await path.next(callOf(), thrownOutcome(error, true, summarize), admission);
    expect(step).toEqual({
      action: 'end',
      end: { outcome: 'aborted', attempts: 1, decision: undefined, failure: undefined, error },
    });
    expect(budget.calls).toEqual([]);
    expect(breaker.state('flaky', Date.now())).toBe('closed');
  });

  it('a reliability failure counts in the circuit; its own answer then ends the call at once', async () => {
    const budget = recordingBudget();
    const breaker = createCircuitBreaker({ failureThreshold: 1, openMs: 60_000 });
    const path = pathOf({ getToolAnnotations: () => idem }, budget, breaker);
    const first = path.admit(span, 'flaky');
    await path.next(callOf(), thrownOutcome(reset(), false, summarize), first);
    expect(breaker.state('flaky', Date.now())).toBe('open');

    const refused = path.admit(span, 'flaky');
    expect(refused?.allowed).toBe(false);
    budget.calls.length = 0;
    const local = fail({ ...transient(), code: 'circuit_open' });
    const step = await path.next(callOf(2), resultOutcome(local, KEY, true), refused);
    expect(step).toMatchObject({
      action: 'end',
      end: {
        outcome: 'failure',
        attempts: 2,
        decision: { action: 'stop', reason: 'circuit_open', outcome: 'failure' },
        failure: { class: 'reliability', code: 'circuit_open' },
      },
    });
    // Nothing was sent: no budget asked or spent.
    expect(budget.calls).toEqual([]);
  });

  it('a retry that would meet the open circuit waits for half-open, or stops beyond the budget', async () => {
    const breaker = createCircuitBreaker({ failureThreshold: 1, openMs: 3_000 });
    const path = pathOf({ getToolAnnotations: () => idem }, recordingBudget(), breaker);
    const admission = path.admit(span, 'flaky');
    const step = await path.next(callOf(), resultOutcome(fail(transient()), KEY, false), admission);
    expect(step).toMatchObject({
      action: 'retry',
      decision: { delayMs: 3_000, delaySource: 'circuit_open' },
    });

    const long = createCircuitBreaker({ failureThreshold: 1, openMs: 60_000 });
    const held = pathOf({ getToolAnnotations: () => idem }, recordingBudget(), long);
    const again = held.admit(span, 'flaky');
    expect(
      await held.next(callOf(), resultOutcome(fail(transient()), KEY, false), again),
    ).toMatchObject({
      action: 'end',
      end: {
        outcome: 'budget_exhausted',
        decision: { action: 'stop', reason: 'circuit_open', outcome: 'budget_exhausted' },
      },
    });
  });

  it('admits every call of a tool circuitTools refuses (or throws on), and counts none', async () => {
    const breaker = createCircuitBreaker({ failureThreshold: 1 });
    const refusing = pathOf({ circuitTools: (name) => name !== 'flaky' }, undefined, breaker);
    expect(refusing.admit(span, 'flaky')).toBeUndefined();
    const throwing = pathOf(
      {
        circuitTools: () => {
          throw new Error('broken');
        },
      },
      undefined,
      breaker,
    );
    expect(throwing.admit(span, 'flaky')).toBeUndefined();
    await refusing.next(callOf(), resultOutcome(fail(transient()), KEY, false), undefined);
    expect(breaker.state('flaky', Date.now())).toBe('closed');
  });

  it('without annotations a retryable failure is not retried (not idempotent)', async () => {
    const step = await pathOf({ getToolAnnotations: () => undefined }).next(
      callOf(),
      resultOutcome(fail(transient()), KEY, false),
      undefined,
    );
    expect(step).toMatchObject({
      action: 'end',
      end: { outcome: 'failure', decision: { reason: 'not_idempotent' } },
    });
  });
});
