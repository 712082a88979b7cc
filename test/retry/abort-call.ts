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

/** How the server answers every call: a JSON-RPC error, or a retryable failure result. */
export type Answer = 'throw' | 'failure';

/**
 * A real SDK 1.x client and low-level Server over a linked in-memory pair; the server's one tool,
 * `flaky` (idempotent), answers every call as `answer` says, and every message the server
 * receives is recorded.
 */
async function recordingPair(answer: Answer): Promise<{
  client: Client;
  received: JSONRPCMessage[];
  close: () => Promise<void>;
}> {
  const server = new Server({ name: 'flaky', version: '1.0.0' }, { capabilities: { tools: {} } });
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

/** A call of `flaky` under way, and what the server has received of it. */
export interface AbortableCall {
  controller: AbortController;
  pending: Promise<unknown>;
  /** How many tools/call requests the server received. */
  calls: () => number;
  /** The method of every message the server received (`response` for a response). */
  methods: () => string[];
}

/** recordingPair(answer), and how to start the call the abort tests make through its client. */
export async function flakyServer(answer: Answer): Promise<{
  /**
   * Starts withToolRetry's call of `flaky` (3 attempts, 60 s between them, every failure and
   * every throw retryable) under a signal the test aborts. Call it after any fake time is set.
   */
  start: () => AbortableCall;
  close: () => Promise<void>;
}> {
  const pair = await recordingPair(answer);
  const start = (): AbortableCall => {
    const retrying = withToolRetry(pair.client, {
      maxAttempts: 3,
      retryOnThrow: true,
      backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000, jitter: 'none' },
      classifier: () => ({ class: 'reliability', code: 'upstream_unavailable', retryable: true }),
    });
    const controller = new AbortController();
    const pending = retrying.callTool({ name: 'flaky' }, undefined, { signal: controller.signal });
    pending.catch(() => undefined);
    return {
      controller,
      pending,
      calls: () => pair.received.filter((m) => 'method' in m && m.method === 'tools/call').length,
      methods: () => pair.received.map((m) => ('method' in m ? m.method : 'response')),
    };
  };
  return { start, close: pair.close };
}
