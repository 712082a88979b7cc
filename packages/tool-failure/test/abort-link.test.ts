// AbortLink: a child controller tied to parent signals for one request or wait, and cut loose
// by dispose(). What matters is what it leaves on the parents (nothing, once disposed) and that
// a child the MCP SDK hangs a listener on for good is freed with its request.
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortLink } from '../src/wire/abort-link.js';
import { withToolRetry } from '../../../src/retry/index.js';
import { fail, transient, v1Pair } from '../../../test/retry/mcp-v1-pair.js';

describe('AbortLink', () => {
  it('aborts with the reason of whichever parent aborts first', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = new AbortLink([a.signal, undefined, b.signal]);
    expect(link.signal.aborted).toBe(false);
    const reason = new Error('b went');
    b.abort(reason);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe(reason);
    // Aborting let go of the other parent too.
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });

  it('starts aborted when a parent already is, and adds no listener', () => {
    const a = new AbortController();
    const done = new AbortController();
    done.abort('already');
    const link = new AbortLink([a.signal, done.signal]);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('already');
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });

  it('abort() aborts the child only; dispose() leaves nothing on the parents', () => {
    const parent = new AbortController();
    const own = new AbortLink([parent.signal]);
    own.abort('mine');
    expect(own.signal.reason).toBe('mine');
    expect(parent.signal.aborted).toBe(false);
    const disposed = new AbortLink([parent.signal]);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    disposed.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    parent.abort('late');
    expect(disposed.signal.aborted).toBe(false);
  });

  it('a disposed child with a listener left on it is collected, its parent long-lived', () => {
    // The SDK's pattern: a listener added to the request's signal and never removed, holding
    // the request. 2,000 requests of 10 KB each on one long-lived parent: after GC none is left.
    const script = `
      const { AbortLink } = await import(${JSON.stringify(new URL('../dist/esm/wire/abort-link.js', import.meta.url).href)});
      const parent = new AbortController().signal;
      const refs = [];
      let request = (i) => {
        const link = new AbortLink([parent]);
        const body = String(i).padEnd(10_000, 'x');
        link.signal.addEventListener('abort', () => body.length);
        refs.push(new WeakRef(link.signal));
        link.dispose();
      };
      for (let i = 0; i < 2000; i++) request(i);
      request = undefined;
      for (let i = 0; i < 4; i++) { globalThis.gc(); await new Promise((r) => setImmediate(r)); }
      console.log(refs.filter((r) => r.deref() !== undefined).length);
    `;
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('0');
  });
});

describe('withToolRetry and a long-lived signal', () => {
  it('leaves no listener on a signal passed to many calls with retries', async () => {
    const pair = await v1Pair({
      // Attempts 1, 4, 7, ... fail: the first attempt of every other call.
      flaky: {
        annotations: { idempotentHint: true },
        script: (n) =>
          n % 3 === 1 ? fail(transient()) : { content: [{ type: 'text', text: `ok ${n}` }] },
      },
    });
    try {
      const client = withToolRetry(pair.client, {
        retryBudget: false,
        backoff: { initialDelayMs: 0, maxDelayMs: 0, jitter: 'none' },
      });
      await client.listTools();
      const shutdown = new AbortController();
      for (let i = 0; i < 50; i++)
        await client.callTool({ name: 'flaky', arguments: {} }, undefined, {
          signal: shutdown.signal,
        });
      // 75 requests went out (every other call retried once) and 25 retry waits ran: none of
      // them left a listener, the SDK's included, on the application's signal.
      expect(pair.calls.get('flaky')).toBe(75);
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    } finally {
      await pair.close();
    }
  });
});
