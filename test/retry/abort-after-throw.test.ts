// A caller's abort while the engine waits after an attempt that threw ends the call, and sends the
// server nothing: that attempt's request has already been answered, so it is let go of when it
// ends, like every other attempt, and its signal no longer follows the caller's.
import { describe, expect, it } from 'vitest';
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

/** A server whose one tool answers every call with a JSON-RPC error; it records what it receives. */
async function erroringPair(): Promise<{
  client: Client;
  received: JSONRPCMessage[];
  close: () => Promise<void>;
}> {
  const server = new Server(
    { name: 'erroring', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
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
    throw new McpError(-32603, 'upstream reset');
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

describe('an abort during the wait after a thrown attempt', () => {
  it('rejects the call and sends no notifications/cancelled for the answered request', async () => {
    const pair = await erroringPair();
    const retrying = withToolRetry(pair.client, {
      maxAttempts: 3,
      retryOnThrow: true,
      backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000, jitter: 'none' },
      classifier: () => ({ class: 'reliability', code: 'upstream_unavailable', retryable: true }),
    });
    const controller = new AbortController();
    const pending = retrying.callTool({ name: 'flaky' }, undefined, { signal: controller.signal });
    pending.catch(() => undefined);
    const calls = (): number =>
      pair.received.filter((m) => 'method' in m && m.method === 'tools/call').length;
    for (let i = 0; i < 200 && calls() === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    expect(calls()).toBe(1);

    const reason = new Error('user cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await new Promise((r) => setTimeout(r, 20));
    const methods = pair.received.map((m) => ('method' in m ? m.method : 'response'));
    expect(methods).not.toContain('notifications/cancelled');
    expect(calls()).toBe(1);
    await pair.close();
  });
});
