import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/retry/index.js';
import {
  TOOL_FAILURE_META_KEY,
  readToolFailure,
  toolFailure,
} from '../../packages/tool-failure/src/index.js';
import type { DecideContext } from '../../src/retry/index.js';
import type { ToolFailure, ToolFailureClass } from '../../packages/tool-failure/src/index.js';

const NOW = 1_800_000_000_000;
const ctx = (over: Partial<DecideContext> = {}): DecideContext => ({
  attempt: 1,
  annotations: { idempotentHint: true },
  now: NOW,
  elapsedMs: 0,
  limits: { maxAttempts: 3, maxElapsedMs: 30_000 },
  backoffMs: 100,
  ...over,
});
/** A failure object; a key given as `undefined` is left out, as a server would. */
const failure = (over: Partial<ToolFailure> = {}): ToolFailure =>
  Object.fromEntries(
    Object.entries({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      correlationId: 'c-1',
      ...over,
    }).filter(([, v]) => v !== undefined),
  ) as ToolFailure;

describe('decide()', () => {
  it('retries a retryable reliability failure of an idempotent tool after the backoff', () => {
    expect(decide(failure(), ctx())).toEqual({
      action: 'retry',
      delayMs: 100,
      reason: 'retryable_failure',
      delaySource: 'backoff',
      failure: {
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        correlationId: 'c-1',
      },
    });
  });

  it('accepts a reading as well as a failure object', () => {
    const result = toolFailure({ class: 'reliability', code: 'x_busy', retryable: true });
    expect(decide(readToolFailure(result), ctx())).toMatchObject({ action: 'retry' });
  });

  it('surfaces capability failures, with the agent guidance', () => {
    const d = decide(
      failure({
        class: 'capability',
        code: 'invalid_input',
        retryable: false,
        agentGuidance: 'fix x',
      }),
      ctx(),
    );
    expect(d).toMatchObject({ action: 'surface', reason: 'capability', agentGuidance: 'fix x' });
  });

  it('sends governance failures out of band', () => {
    const d = decide(
      failure({ class: 'governance', code: 'auth_required', retryable: undefined }),
      ctx(),
    );
    expect(d).toMatchObject({ action: 'out_of_band', reason: 'governance' });
  });

  it('dispatches an unrecognised code on its class alone', () => {
    expect(decide(failure({ code: 'vendor_flaky_backend' }), ctx()).action).toBe('retry');
    expect(
      decide(failure({ class: 'governance', code: 'vendor_x', retryable: false }), ctx()).action,
    ).toBe('out_of_band');
    expect(
      decide(failure({ class: 'capability', code: 'vendor_y', retryable: false }), ctx()).action,
    ).toBe('surface');
  });

  it.each([
    ['not retryable', failure({ retryable: false }), ctx(), 'not_retryable', 'failure'],
    ['retryable absent', failure({ retryable: undefined }), ctx(), 'not_retryable', 'failure'],
    [
      'not idempotent',
      failure(),
      ctx({ annotations: { idempotentHint: false } }),
      'not_idempotent',
      'failure',
    ],
    [
      'annotations unknown',
      failure(),
      ctx({ annotations: undefined }),
      'not_idempotent',
      'failure',
    ],
    [
      'readOnly only',
      failure(),
      ctx({ annotations: { readOnlyHint: true } }),
      'not_idempotent',
      'failure',
    ],
    [
      'attempts exhausted',
      failure(),
      ctx({ attempt: 3 }),
      'attempts_exhausted',
      'retries_exhausted',
    ],
    [
      'shared budget',
      failure(),
      ctx({ retryBudgetAllows: false }),
      'retry_budget_exhausted',
      'budget_exhausted',
    ],
    [
      'time budget',
      failure(),
      ctx({ elapsedMs: 30_000 }),
      'time_budget_exhausted',
      'budget_exhausted',
    ],
    [
      'time budget already overrun, no retryNotBefore',
      failure(),
      ctx({ elapsedMs: 31_000 }),
      'time_budget_exhausted',
      'budget_exhausted',
    ],
    [
      'retryNotBefore beyond the budget',
      failure({ retryNotBefore: NOW + 31_000 }),
      ctx(),
      'retry_not_before_beyond_budget',
      'budget_exhausted',
    ],
  ] as const)('stops: %s', (_name, f, c, reason, outcome) => {
    expect(decide(f, c)).toMatchObject({ action: 'stop', reason, outcome });
  });

  it('never retries a malformed failure, even if it claims to be retryable', () => {
    const noCorrelation = {
      class: 'reliability',
      code: 'x',
      retryable: true,
    } as unknown as ToolFailure;
    expect(decide(noCorrelation, ctx())).toEqual({
      action: 'stop',
      reason: 'malformed',
      outcome: 'failure',
    });
    const badClass = readToolFailure({
      isError: true,
      _meta: {
        [TOOL_FAILURE_META_KEY]: {
          class: 'transient',
          code: 'x',
          retryable: true,
          correlationId: 'c',
        },
      },
    });
    expect(decide(badClass, ctx()).action).toBe('stop');
  });

  it('does not retry an unclassified error (isError without a failure object)', () => {
    const reading = readToolFailure({ isError: true, content: [] });
    expect(decide(reading, ctx())).toEqual({
      action: 'stop',
      reason: 'not_classified',
      outcome: 'failure',
    });
  });

  it('waits for retryNotBefore when it is later than the backoff', () => {
    const d = decide(failure({ retryNotBefore: NOW + 5_000 }), ctx({ backoffMs: 100 }));
    expect(d).toMatchObject({ action: 'retry', delayMs: 5_000, delaySource: 'retry_not_before' });
  });

  it('uses the backoff when retryNotBefore has already passed', () => {
    const d = decide(failure({ retryNotBefore: NOW - 5_000 }), ctx({ backoffMs: 300 }));
    expect(d).toMatchObject({ action: 'retry', delayMs: 300, delaySource: 'backoff' });
  });

  it('clamps the backoff, not retryNotBefore, to the remaining budget', () => {
    const d = decide(failure(), ctx({ backoffMs: 5_000, elapsedMs: 29_000 }));
    expect(d).toMatchObject({ action: 'retry', delayMs: 1_000 });
  });
});

describe('decide() properties', () => {
  const classes = fc.constantFrom<ToolFailureClass>('capability', 'reliability', 'governance');
  const anyFailure = fc.record(
    {
      class: classes,
      code: fc.oneof(
        fc.constantFrom('retryable_transient_error', 'auth_required', 'invalid_input'),
        fc.string(),
      ),
      retryable: fc.boolean(),
      retryNotBefore: fc.integer({ min: 0, max: NOW * 2 }),
      correlationId: fc.string(),
      agentGuidance: fc.string(),
    },
    { requiredKeys: ['class', 'code', 'correlationId'] },
  );
  const anyContext = fc.record({
    attempt: fc.integer({ min: 1, max: 10 }),
    annotations: fc.option(
      fc.record({ idempotentHint: fc.boolean(), readOnlyHint: fc.boolean() }),
      {
        nil: undefined,
      },
    ),
    now: fc.integer({ min: 0, max: NOW * 2 }),
    elapsedMs: fc.integer({ min: 0, max: 100_000 }),
    limits: fc.record({
      maxAttempts: fc.integer({ min: 1, max: 10 }),
      maxElapsedMs: fc.integer({ min: 0, max: 100_000 }),
    }),
    backoffMs: fc.oneof(fc.double(), fc.integer({ min: 0, max: 60_000 })),
    retryBudgetAllows: fc.boolean(),
  });

  // Inputs drawn from the whole space seldom make a retry (a retryable reliability failure of an
  // idempotent tool, within every budget); half of each draw comes from that corner, so the
  // properties about retries are exercised, and each test counts that they were.
  const retryableFailure = fc.record({
    class: fc.constant<ToolFailureClass>('reliability'),
    code: fc.constantFrom('retryable_transient_error', 'upstream_unavailable', 'rate_limited'),
    retryable: fc.constant(true),
    retryNotBefore: fc.option(fc.integer({ min: NOW - 1_000, max: NOW + 20_000 }), {
      nil: undefined,
    }),
    correlationId: fc.string(),
  });
  const retryableContext = fc.record({
    attempt: fc.integer({ min: 1, max: 3 }),
    annotations: fc.constant({ idempotentHint: true }),
    now: fc.integer({ min: NOW - 1_000, max: NOW + 1_000 }),
    elapsedMs: fc.integer({ min: 0, max: 1_000 }),
    limits: fc.record({
      maxAttempts: fc.integer({ min: 4, max: 10 }),
      maxElapsedMs: fc.integer({ min: 30_000, max: 100_000 }),
    }),
    backoffMs: fc.integer({ min: 0, max: 10_000 }),
    retryBudgetAllows: fc.constant(true),
  });
  const someFailure = fc.oneof(anyFailure, retryableFailure);
  const someContext = fc.oneof(anyContext, retryableContext);
  const RUNS = 400;

  it('capability and governance never yield a retry', () => {
    fc.assert(
      fc.property(someFailure, someContext, (f, c) => {
        const d = decide(f as ToolFailure, c);
        if (f.class !== 'reliability') expect(d.action).not.toBe('retry');
      }),
    );
  });

  it('a retry is only for a retryable reliability failure of an idempotent tool', () => {
    let retries = 0;
    fc.assert(
      fc.property(someFailure, someContext, (f, c) => {
        const d = decide(f as ToolFailure, c);
        if (d.action === 'retry') {
          retries++;
          expect(f.class).toBe('reliability');
          expect(f.retryable).toBe(true);
          expect(c.annotations?.idempotentHint).toBe(true);
          expect(c.attempt).toBeLessThan(c.limits.maxAttempts);
          expect(c.retryBudgetAllows).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
    expect(retries).toBeGreaterThan(RUNS / 20);
  });

  it('a retry is never scheduled earlier than retryNotBefore, nor past the budget', () => {
    let retries = 0;
    let waited = 0;
    fc.assert(
      fc.property(someFailure, someContext, (f, c) => {
        const d = decide(f as ToolFailure, c);
        if (d.action !== 'retry') return;
        retries++;
        expect(Number.isFinite(d.delayMs)).toBe(true);
        expect(d.delayMs).toBeGreaterThanOrEqual(0);
        if (f.retryNotBefore !== undefined) {
          expect(c.now + d.delayMs).toBeGreaterThanOrEqual(f.retryNotBefore);
          if (f.retryNotBefore > c.now) waited++;
        }
        expect(c.elapsedMs + d.delayMs).toBeLessThanOrEqual(c.limits.maxElapsedMs + 1);
      }),
      { numRuns: RUNS },
    );
    expect(retries).toBeGreaterThan(RUNS / 20);
    // Retries that had to wait for a retryNotBefore in the future, the case the rule is about.
    expect(waited).toBeGreaterThan(RUNS / 50);
  });

  it('a retryNotBefore beyond the budget ends the call with budget_exhausted', () => {
    fc.assert(
      fc.property(anyContext, fc.integer({ min: 1, max: 1_000_000 }), (c, beyond) => {
        const remaining = c.limits.maxElapsedMs - c.elapsedMs;
        const f = failure({ retryNotBefore: c.now + Math.max(0, remaining) + beyond });
        const d = decide(f, {
          ...c,
          attempt: 1,
          limits: { ...c.limits, maxAttempts: 10 },
          annotations: { idempotentHint: true },
          retryBudgetAllows: true,
        });
        expect(d).toMatchObject({ action: 'stop', outcome: 'budget_exhausted' });
      }),
    );
  });
});
