// A caller's abort while the engine waits after an attempt that threw ends the call, and sends the
// server nothing: that attempt's request has already been answered, so it is let go of when it
// ends, like every other attempt, and its signal no longer follows the caller's.
import { describe, expect, it } from 'vitest';
import { flakyServer } from './abort-call.js';

describe('an abort during the wait after a thrown attempt', () => {
  it('rejects the call and sends no notifications/cancelled for the answered request', async () => {
    const server = await flakyServer('throw');
    const { controller, pending, calls, methods } = server.start();
    for (let i = 0; i < 200 && calls() === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    expect(calls()).toBe(1);

    const reason = new Error('user cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await new Promise((r) => setTimeout(r, 20));
    expect(methods()).not.toContain('notifications/cancelled');
    expect(calls()).toBe(1);
    await server.close();
  });
});
