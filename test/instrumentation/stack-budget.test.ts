import { describe, expect, it } from 'vitest';
import { StackBudget } from '../../src/core/stack-budget.js';
import { resolveConfig } from '../../src/core/config.js';

function clocked(perSecond: number) {
  let now = 0;
  const budget = new StackBudget(perSecond, () => now);
  return { budget, advance: (ms: number) => (now += ms) };
}

describe('stack-trace budget', () => {
  it('gives each tool and exception type a second of tokens, refilled with time', () => {
    const { budget, advance } = clocked(3);
    const take = () => budget.take('t', 'Error');
    expect([take(), take(), take(), take()]).toEqual([true, true, true, false]);
    expect(budget.take('t', 'TypeError')).toBe(true);
    expect(budget.take('other', 'Error')).toBe(true);
    advance(340);
    expect([take(), take()]).toEqual([true, false]);
    advance(10_000);
    expect([take(), take(), take(), take()]).toEqual([true, true, true, false]);
  });

  it('Infinity always, 0 never', () => {
    const all = new StackBudget(Infinity);
    const none = new StackBudget(0);
    for (let i = 0; i < 1000; i++) expect(all.take('t', 'Error')).toBe(true);
    expect(none.take('t', 'Error')).toBe(false);
  });

  it('keys beyond its limit share one bucket, so memory stays bounded', () => {
    const { budget } = clocked(1);
    for (let i = 0; i < 1024; i++) expect(budget.take(`tool-${i}`, 'Error')).toBe(true);
    expect(budget.take('tool-new-1', 'Error')).toBe(true);
    expect(budget.take('tool-new-2', 'Error')).toBe(false);
  });

  it('config: 10 per second unless a number >= 0 is given', () => {
    expect(resolveConfig({}).stackBudget.perSecond).toBe(10);
    expect(resolveConfig({ maxStackTracesPerSecond: Infinity }).stackBudget.perSecond).toBe(
      Infinity,
    );
    expect(resolveConfig({ maxStackTracesPerSecond: 0 }).stackBudget.perSecond).toBe(0);
    for (const bad of [-1, Number.NaN, '5', null])
      expect(
        resolveConfig({ maxStackTracesPerSecond: bad as unknown as number }).stackBudget.perSecond,
      ).toBe(10);
  });
});
