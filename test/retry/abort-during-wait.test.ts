// Under fake time: a caller's abort during the backoff wait ends the call with the caller's reason
// and sends the server no notifications/cancelled, whether the attempt before the wait threw (a
// JSON-RPC error, with retryOnThrow) or was answered (a retryable failure result). Each attempt's
// link to the caller's signal ends with the attempt, before the wait begins.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { withToolRetry } from '../../src/retry/index.js';
import { toolFailure } from '../../packages/tool-failure/src/index.js';
import { flush, useFakeTime } from './fake-time.js';

type Answer = 'throw' | 'failure';

/** A server whose tool answers every call as `answer` says; it records every message it receives. */
async function pair(answer: Answer): Promise<{
  client: Client;
  received: JSONRPCMessage[];
  close: () => Promise<void>;
}> {
  const server = new Server({ name: 'waiting', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'flaky',
        inputSchema: { type: 'object' as const },
        annotations: { idempotentHint: true },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => {
    if (answer === 'throw') throw new McpError(-32603, 'upstream reset');
    return toolFailure({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
    }) as never;
  });
  const client = new Client({ name: 'caller', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  await server.connect(serverSide);
  const deliver = serverSide.onmessage!;
  serverSide.onmessage = (message, extra) => {
    received.push(message);
    deliver(message, extra);
  };
  await client.connect(clientSide);
  return {
    client,
    received,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe('an abort during the backoff wait (fake time)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(['throw', 'failure'] as const)(
    'after an attempt that ended (%s): the call rejects with the reason, and the server gets no notifications/cancelled',
    async (answer) => {
      const { client, received, close } = await pair(answer);
      useFakeTime();
      try {
        const retrying = withToolRetry(client, {
          maxAttempts: 3,
          retryOnThrow: true,
          backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000, jitter: 'none' },
          classifier: () => ({
            class: 'reliability',
            code: 'upstream_unavailable',
            retryable: true,
          }),
        });
        const controller = new AbortController();
        const pending = retrying.callTool({ name: 'flaky' }, undefined, {
          signal: controller.signal,
        });
        pending.catch(() => undefined);
        const calls = (): number =>
          received.filter((m) => 'method' in m && m.method === 'tools/call').length;
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
        const methods = received.map((m) => ('method' in m ? m.method : 'response'));
        expect(methods).not.toContain('notifications/cancelled');
        expect(calls()).toBe(1);
      } finally {
        vi.useRealTimers();
        await close();
      }
    },
  );
});
