import { describe, expect, it } from 'vitest';
import { createRetryBudget } from '../../src/retry/index.js';

describe('createRetryBudget()', () => {
  it('allows retries only while tokens exceed half the bucket', () => {
    const budget = createRetryBudget({ maxTokens: 10, tokenRatio: 0.1 });
    expect(budget.canRetry()).toBe(true);
    for (let i = 0; i < 4; i++) budget.recordFailure();
    expect(budget.tokens).toBe(6);
    expect(budget.canRetry()).toBe(true);
    budget.recordFailure();
    expect(budget.tokens).toBe(5);
    expect(budget.canRetry()).toBe(false);
  });

  it('refills by tokenRatio per success, exactly, up to the bucket size', () => {
    const budget = createRetryBudget();
    for (let i = 0; i < 5; i++) budget.recordFailure();
    expect(budget.canRetry()).toBe(false);
    budget.recordSuccess();
    expect(budget.tokens).toBe(5.1);
    expect(budget.canRetry()).toBe(true);
    for (let i = 0; i < 100; i++) budget.recordSuccess();
    expect(budget.tokens).toBe(10);
  });

  it('never goes below zero', () => {
    const budget = createRetryBudget({ maxTokens: 2 });
    for (let i = 0; i < 10; i++) budget.recordFailure();
    expect(budget.tokens).toBe(0);
  });

  it('rejects nonsense options', () => {
    expect(() => createRetryBudget({ maxTokens: 0 })).toThrow(RangeError);
    expect(() => createRetryBudget({ tokenRatio: 2 })).toThrow(RangeError);
  });
});
