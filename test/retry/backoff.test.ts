import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF } from '../../src/retry/index.js';
import {
  backoffDelay,
  decorrelatedJitter,
  equalJitter,
  exponentialDelay,
  fullJitter,
} from '../../src/retry/backoff.js';
import { resolveBackoff } from '../../src/retry/backoff.js';
import type { BackoffOptions } from '../../src/retry/index.js';

const opts: BackoffOptions = {
  initialDelayMs: 100,
  maxDelayMs: 1_000,
  multiplier: 2,
  jitter: 'full',
};

describe('backoff', () => {
  it('grows exponentially and is capped', () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => exponentialDelay(a, opts))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(exponentialDelay(10_000, opts)).toBe(1_000);
  });

  it('full jitter spans [0, delay)', () => {
    expect(fullJitter(3, opts, () => 0)).toBe(0);
    expect(fullJitter(3, opts, () => 0.5)).toBe(200);
    expect(fullJitter(3, opts, () => 0.999)).toBeLessThan(400);
  });

  it('equal jitter spans [delay/2, delay)', () => {
    expect(equalJitter(3, opts, () => 0)).toBe(200);
    expect(equalJitter(3, opts, () => 0.999)).toBeLessThan(400);
  });

  it('decorrelated jitter spans [initial, 3 * previous), capped', () => {
    expect(decorrelatedJitter(undefined, opts, () => 0)).toBe(100);
    expect(decorrelatedJitter(200, opts, () => 0.5)).toBe(100 + (600 - 100) * 0.5);
    expect(decorrelatedJitter(900, opts, () => 0.99)).toBe(1_000);
  });

  it('is pure and always within [0, maxDelayMs], whatever random returns', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom('none', 'full', 'equal', 'decorrelated' as const),
        fc.double({ noNaN: false }),
        fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: undefined }),
        (attempt, jitter, r, previous) => {
          const o = { ...opts, jitter };
          const a = backoffDelay(attempt, o, () => r, previous);
          const b = backoffDelay(attempt, o, () => r, previous);
          expect(a).toBe(b);
          expect(a).toBeGreaterThanOrEqual(0);
          expect(a).toBeLessThanOrEqual(o.maxDelayMs);
        },
      ),
    );
  });

  it('has cockatiel-like defaults and rejects nonsense options', () => {
    expect(resolveBackoff()).toEqual(DEFAULT_BACKOFF);
    expect(() => resolveBackoff({ multiplier: 0.5 })).toThrow(RangeError);
    expect(() => resolveBackoff({ initialDelayMs: -1 })).toThrow(RangeError);
    expect(() => resolveBackoff({ maxDelayMs: 10, initialDelayMs: 100 })).toThrow(RangeError);
  });
});
