// Under fake time: a caller's abort during the backoff wait ends the call with the caller's reason
// and sends the server no notifications/cancelled, whether the attempt before the wait threw (a
// JSON-RPC error, with retryOnThrow) or was answered (a retryable failure result). Each attempt's
// link to the caller's signal ends with the attempt, before the wait begins.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flakyServer } from './abort-call.js';
import { flush, useFakeTime } from './fake-time.js';

describe('an abort during the backoff wait (fake time)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(['throw', 'failure'] as const)(
    'after an attempt that ended (%s): the call rejects with the reason, and the server gets no notifications/cancelled',
    async (answer) => {
      const server = await flakyServer(answer);
      useFakeTime();
      try {
        const { controller, pending, calls, methods } = server.start();
        for (let i = 0; i < 50 && calls() === 0; i++) await flush();
        // The first attempt has been answered; the engine now waits 60 s (fake) for the second.
        await vi.advanceTimersByTimeAsync(1_000);
        await flush();
        expect(calls()).toBe(1);
        const reason = new Error('user cancelled');
        controller.abort(reason);
        await expect(pending).rejects.toBe(reason);
        await vi.advanceTimersByTimeAsync(120_000);
        await flush();
        expect(methods()).not.toContain('notifications/cancelled');
        expect(calls()).toBe(1);
      } finally {
        vi.useRealTimers();
        await server.close();
      }
    },
  );
});
