import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withToolRetry } from '../../src/retry/index.js';
import { toolFailure } from '../../packages/tool-failure/src/index.js';
import type { ToolFailureInit } from '../../packages/tool-failure/src/index.js';
import { T0, drive, flush, useFakeTime } from './fake-time.js';
import { registerCountingTools } from './mcp-v1-pair.js';

/** A real SDK 2.x client and server over a linked in-memory pair. */
async function v2Pair(
  tools: Record<
    string,
    { annotations?: { idempotentHint?: boolean }; script: (n: number) => CallToolResult }
  >,
): Promise<{ client: Client; calls: Map<string, number>; close: () => Promise<void> }> {
  const server = new McpServer({ name: 'retry-test-server-v2', version: '2.0.0' });
  const calls = registerCountingTools(server, tools);
  const client = new Client({ name: 'retry-test-client-v2', version: '2.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    client,
    calls,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

const fail = (init: ToolFailureInit): CallToolResult => toolFailure(init) as CallToolResult;
const ok = (): CallToolResult => ({ content: [{ type: 'text', text: 'ok' }] });
const transient = (over: Partial<ToolFailureInit> = {}): ToolFailureInit => ({
  class: 'reliability',
  code: 'retryable_transient_error',
  retryable: true,
  ...over,
});

describe('withToolRetry() with a real SDK 2.x client', () => {
  beforeEach(() => useFakeTime());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('retries a transient failure of an idempotent tool: 3 attempts, success', async () => {
    const pair = await v2Pair({
      flaky: {
        annotations: { idempotentHint: true },
        script: (n) => (n <= 2 ? fail(transient()) : ok()),
      },
    });
    const client = withToolRetry(pair.client, { random: () => 0.5, retryBudget: false });
    const report = await drive(client.callToolWithRetry({ name: 'flaky' }));
    expect(report).toMatchObject({ outcome: 'success', attempts: 3 });
    expect(pair.calls.get('flaky')).toBe(3);
    await pair.close();
  });

  it('does not retry capability, governance or unannotated tools', async () => {
    const pair = await v2Pair({
      c: {
        annotations: { idempotentHint: true },
        script: () => fail({ class: 'capability', code: 'invalid_input' }),
      },
      g: {
        annotations: { idempotentHint: true },
        script: () => fail({ class: 'governance', code: 'auth_required' }),
      },
      bare: { script: () => fail(transient()) },
    });
    const client = withToolRetry(pair.client);
    const actions = [];
    for (const name of ['c', 'g', 'bare']) {
      actions.push((await drive(client.callToolWithRetry({ name }))).decision?.action);
    }
    expect(actions).toEqual(['surface', 'out_of_band', 'stop']);
    expect([...pair.calls.values()]).toEqual([1, 1, 1]);
    await pair.close();
  });

  it('honours retryNotBefore: the second attempt starts at it, not a millisecond before', async () => {
    const pair = await v2Pair({
      slow: {
        annotations: { idempotentHint: true },
        script: (n) => (n === 1 ? fail(transient({ retryNotBefore: Date.now() + 2_000 })) : ok()),
      },
    });
    const client = withToolRetry(pair.client, { random: () => 0 });
    const pending = client.callTool({ name: 'slow' });
    await flush();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(pair.calls.get('slow')).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    await expect(pending).resolves.toEqual(ok());
    expect(pair.calls.get('slow')).toBe(2);
    expect(Date.now()).toBe(T0 + 2_000);

    await pair.close();
  });

  it('finds the signal in the 2.x options (2nd argument): an abort during backoff rejects at once', async () => {
    const pair = await v2Pair({
      later: {
        annotations: { idempotentHint: true },
        script: () => fail(transient({ retryNotBefore: Date.now() + 20_000 })),
      },
    });
    const controller = new AbortController();
    const pending = withToolRetry(pair.client).callTool(
      { name: 'later' },
      { signal: controller.signal },
    );
    pending.catch(() => undefined);
    await flush();
    expect(pair.calls.get('later')).toBe(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(Date.now()).toBe(T0);
    expect(vi.getTimerCount()).toBe(0);
    await pair.close();
  });
});
