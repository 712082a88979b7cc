import { vi } from 'vitest';

/** A fixed epoch for fake time (2027-01-15T08:00:00Z). */
export const T0 = Date.UTC(2027, 0, 15, 8, 0, 0);

/** Fakes timers and `Date` only, leaving microtasks real so the in-memory transport flows. */
export function useFakeTime(): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    now: T0,
  });
}

/** Advances fake time in small steps until `promise` settles (or `limitMs` passes). */
export async function drive<T>(promise: Promise<T>, limitMs = 120_000, stepMs = 10): Promise<T> {
  let settled = false;
  const tracked = promise.finally(() => {
    settled = true;
  });
  tracked.catch(() => undefined);
  for (let t = 0; t <= limitMs && !settled; t += stepMs) {
    await vi.advanceTimersByTimeAsync(stepMs);
  }
  return tracked;
}

/** Lets pending microtasks (in-memory transport messages) run without moving time. */
export async function flush(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
