import type { RetryClock } from './types.js';

/**
 * The system clock. Globals are looked up on each call, so fake timers installed after
 * this module loads (vitest, sinon) still apply.
 */
export const systemClock: RetryClock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (callback: () => void, ms: number): unknown => setTimeout(callback, ms),
  clearTimeout: (handle: unknown): void => {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
});

/**
 * Waits `ms` milliseconds. On abort it clears its timer and rejects at once with the
 * signal's reason (like p-retry, unlike cockatiel's delay); once settled it leaves no
 * timer and no listener behind.
 */
export function sleep(
  ms: number,
  signal?: AbortSignal,
  clock: RetryClock = systemClock,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(abortReason(signal));
    };
    const handle = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, Number.isFinite(ms) ? ms : 0),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The signal's reason, or an `AbortError` when it has none. */
export function abortReason(signal: AbortSignal | undefined): unknown {
  const reason: unknown = signal?.reason;
  if (reason !== undefined) return reason;
  const error = new Error('This operation was aborted');
  error.name = 'AbortError';
  return error;
}
