import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sleep } from '../../src/retry/sleep.js';
import type { RetryClock } from '../../src/retry/index.js';

describe('sleep()', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the delay and leaves no timer behind', async () => {
    let done = false;
    const p = sleep(1_000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once with the reason on abort, clears its timer and its listener', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const p = sleep(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(add).toHaveBeenCalledWith('abort', expect.any(Function), { once: true });
    // `once` removed the listener when it fired; nothing is left to remove by hand.
    expect(remove).not.toHaveBeenCalled();
  });

  it('removes its abort listener when it completes normally', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const p = sleep(10, controller.signal);
    await vi.advanceTimersByTimeAsync(10);
    await p;
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('rejects without a timer when the signal is already aborted', async () => {
    const p = sleep(10, AbortSignal.abort());
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('uses an injected clock', async () => {
    const calls: number[] = [];
    const clock: RetryClock = {
      now: () => 0,
      setTimeout: (cb, ms) => {
        calls.push(ms);
        cb();
        return 1;
      },
      clearTimeout: () => undefined,
    };
    await sleep(42, undefined, clock);
    expect(calls).toEqual([42]);
  });
});
