import type { RetryBudget, RetryBudgetOptions } from './types.js';

/** A retry budget that also reports its token count, for tests and dashboards. */
export interface TokenBucketRetryBudget extends RetryBudget {
  readonly tokens: number;
  readonly maxTokens: number;
}

/**
 * A shared retry budget after gRPC's retry throttling: a bucket of `maxTokens` tokens,
 * each failure costs 1, each success refunds `tokenRatio`, and retries are allowed only
 * while the bucket holds more than half. A server that keeps failing drains it within a
 * few failures, after which no call retries until successes refill it.
 */
export function createRetryBudget(options?: RetryBudgetOptions): TokenBucketRetryBudget {
  const maxTokens = options?.maxTokens ?? 10;
  const tokenRatio = options?.tokenRatio ?? 0.1;
  if (!(Number.isFinite(maxTokens) && maxTokens > 0 && maxTokens <= 1000))
    throw new RangeError('retryBudget.maxTokens must be in (0, 1000]');
  if (!(Number.isFinite(tokenRatio) && tokenRatio > 0 && tokenRatio <= 1))
    throw new RangeError('retryBudget.tokenRatio must be in (0, 1]');
  const threshold = maxTokens / 2;
  // Kept in thousandths, as gRPC does, so repeated refunds of 0.1 add up exactly.
  const scale = 1000;
  let milli = maxTokens * scale;
  const ratioMilli = Math.round(tokenRatio * scale);
  return {
    get tokens() {
      return milli / scale;
    },
    maxTokens,
    canRetry: () => milli / scale > threshold,
    recordFailure: () => {
      milli = Math.max(0, milli - scale);
    },
    recordSuccess: () => {
      milli = Math.min(maxTokens * scale, milli + ratioMilli);
    },
  };
}

/**
 * A user-supplied budget that cannot break a call: a throwing `canRetry` counts as "no",
 * throwing record methods are ignored.
 */
export function guardedBudget(budget: RetryBudget): RetryBudget {
  return {
    canRetry: () => {
      try {
        return budget.canRetry() === true;
      } catch {
        return false;
      }
    },
    recordFailure: () => {
      try {
        budget.recordFailure();
      } catch {
        // Accounting is best effort; the call goes on.
      }
    },
    recordSuccess: () => {
      try {
        budget.recordSuccess();
      } catch {
        // Accounting is best effort; the call goes on.
      }
    },
  };
}
