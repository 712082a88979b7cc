import { describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/shared/rate-budget.js';
import { resolveConfig } from '../../src/shared/config.js';
import { McpInstrumentation } from '../../src/instrumentation.js';

function clocked(perSecond: number) {
  let now = 0;
  const budget = new RateBudget(perSecond, () => now);
  return { budget, advance: (ms: number) => (now += ms) };
}

describe('rate budget (stack traces, failure log records)', () => {
  it('gives each tool and kind a second of tokens, refilled with time', () => {
    const { budget, advance } = clocked(3);
    const take = () => budget.take('t', 'Error') >= 0;
    expect([take(), take(), take(), take()]).toEqual([true, true, true, false]);
    expect(budget.take('t', 'TypeError')).toBe(0);
    expect(budget.take('other', 'Error')).toBe(0);
    advance(340);
    expect([take(), take()]).toEqual([true, false]);
    advance(10_000);
    expect([take(), take(), take(), take()]).toEqual([true, true, true, false]);
  });

  it('says, on the next granted take, how many of the same key were refused since the last one', () => {
    const { budget, advance } = clocked(2);
    expect([budget.take('t', 'k'), budget.take('t', 'k')]).toEqual([0, 0]);
    for (let i = 0; i < 5; i++) expect(budget.take('t', 'k')).toBe(-1);
    expect(budget.take('t', 'other')).toBe(0);
    advance(500);
    expect(budget.take('t', 'k')).toBe(5);
    advance(500);
    expect(budget.take('t', 'k')).toBe(0);
  });

  it('Infinity always, 0 never', () => {
    const all = new RateBudget(Infinity);
    const none = new RateBudget(0);
    for (let i = 0; i < 1000; i++) expect(all.take('t', 'Error')).toBe(0);
    expect(none.take('t', 'Error')).toBe(-1);
  });

  it('keys beyond its limit share one bucket, so memory stays bounded', () => {
    const { budget } = clocked(1);
    for (let i = 0; i < 1024; i++) expect(budget.take(`tool-${i}`, 'Error')).toBe(0);
    expect(budget.take('tool-new-1', 'Error')).toBe(0);
    expect(budget.take('tool-new-2', 'Error')).toBe(-1);
  });

  it('config: 10 per second unless a number >= 0 is given', () => {
    expect(resolveConfig({}).stackTracesPerSecond).toBe(10);
    expect(resolveConfig({}).failureLogsPerSecond).toBe(10);
    expect(resolveConfig({ maxStackTracesPerSecond: Infinity }).stackTracesPerSecond).toBe(
      Infinity,
    );
    expect(resolveConfig({ maxFailureLogsPerSecond: Infinity }).failureLogsPerSecond).toBe(
      Infinity,
    );
    expect(resolveConfig({ maxStackTracesPerSecond: 0 }).stackTracesPerSecond).toBe(0);
    expect(resolveConfig({ maxFailureLogsPerSecond: 0 }).failureLogsPerSecond).toBe(0);
    for (const bad of [-1, Number.NaN, '5', null]) {
      expect(
        resolveConfig({ maxStackTracesPerSecond: bad as unknown as number }).stackTracesPerSecond,
      ).toBe(10);
      expect(
        resolveConfig({ maxFailureLogsPerSecond: bad as unknown as number }).failureLogsPerSecond,
      ).toBe(10);
    }
  });
});

describe('the storm budgets live with the instrumentation instance', () => {
  it('setConfig() that keeps the rates keeps their state; a new rate gets a new budget', () => {
    const instrumentation = new McpInstrumentation({ enabled: false });
    const source = instrumentation._telemetry();
    const first = source.budgets();
    for (let i = 0; i < 10; i++) expect(first.logs.take('t', 'Error')).toBe(0);
    expect(first.logs.take('t', 'Error')).toBe(-1);
    instrumentation.setConfig({ captureToolPayloads: true });
    const again = source.budgets();
    expect(again.logs).toBe(first.logs);
    expect(again.logs.take('t', 'Error')).toBe(-1);
    instrumentation.setConfig({ maxFailureLogsPerSecond: 5 });
    const changed = source.budgets();
    expect(changed.logs).not.toBe(first.logs);
    expect(changed.logs.perSecond).toBe(5);
    expect(changed.stacks).toBe(first.stacks);
  });
});
