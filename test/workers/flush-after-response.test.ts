/**
 * `flushAfterResponse` of the `./workers` entry, in process with the web streams of Node.js (the
 * same API a Worker has): the flush runs once the body has been sent, not before; at once for a
 * response without a body; and a failing flush or a body it cannot follow never reaches the
 * application.
 */
import { describe, expect, it } from 'vitest';
import { flushAfterResponse } from '../../src/workers.js';

/** An ExecutionContext's `waitUntil`, keeping what it was given. */
function context(): { waitUntil(p: Promise<unknown>): void; settled(): Promise<unknown[]> } {
  const waited: Promise<unknown>[] = [];
  return {
    waitUntil: (p) => void waited.push(p),
    settled: () => Promise.all(waited),
  };
}

describe('flushAfterResponse', () => {
  it('flushes once the streamed body has been read to its end, not when the handler returns', async () => {
    let push!: (chunk: string) => void;
    let end!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => controller.enqueue(new TextEncoder().encode(chunk));
        end = () => controller.close();
      },
    });
    const flushes: string[] = [];
    const ctx = context();
    const response = flushAfterResponse(
      new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
      ctx,
      async () => void flushes.push('flush'),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    push('data: 1\n\n');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(flushes).toEqual([]);
    push('data: 2\n\n');
    end();
    expect(await response.text()).toBe('data: 1\n\ndata: 2\n\n');
    await ctx.settled();
    expect(flushes).toEqual(['flush']);
  });

  it('flushes at once for a response without a body, and returns it as it is', async () => {
    const ctx = context();
    let flushed = 0;
    const original = new Response(null, { status: 202 });
    const response = flushAfterResponse(original, ctx, async () => void flushed++);
    expect(response).toBe(original);
    await ctx.settled();
    expect(flushed).toBe(1);
  });

  it('flushes when the client goes away mid-stream', async () => {
    const ctx = context();
    let flushed = 0;
    const body = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });
    const response = flushAfterResponse(new Response(body), ctx, async () => void flushed++);
    await response.body!.cancel();
    await ctx.settled();
    expect(flushed).toBe(1);
  });

  it('a flush that throws or rejects is never the application’s', async () => {
    for (const flush of [
      () => Promise.reject(new Error('collector down')),
      () => {
        throw new Error('no provider');
      },
    ]) {
      const ctx = context();
      const response = flushAfterResponse(new Response('ok'), ctx, flush);
      expect(await response.text()).toBe('ok');
      await expect(ctx.settled()).resolves.toBeDefined();
    }
  });

  it('a body already read is returned as it is, and flushed at once', async () => {
    const ctx = context();
    let flushed = 0;
    const original = new Response('used');
    await original.text();
    const response = flushAfterResponse(original, ctx, async () => void flushed++);
    expect(response).toBe(original);
    await ctx.settled();
    expect(flushed).toBe(1);
  });
});
