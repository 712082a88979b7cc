import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createToolFailureProxy } from '../src/index.js';
import type { ToolFailureProxy, ToolFailureProxyOptions } from '../src/index.js';
import { Client, Server } from '../../../test/helpers/mcp-v1.js';

/** What a scripted upstream does with one request. */
export type Answer =
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } }
  | 'close'
  | 'hang';

/**
 * An upstream that answers JSON-RPC by hand on an in-memory transport: no SDK, no
 * instrumentation, so what it sends is exactly what the test says.
 */
export function scriptedUpstream(answer: (method: string, params: unknown) => Answer): {
  factory: () => Transport;
  requests: Array<{ method: string; params: unknown }>;
  /** Notifications received, `notifications/initialized` excepted. */
  notifications: Array<{ method: string; params: unknown }>;
  connections: number;
} {
  const state = {
    requests: [] as Array<{ method: string; params: unknown }>,
    notifications: [] as Array<{ method: string; params: unknown }>,
    connections: 0,
    factory: (): Transport => {
      const [proxySide, upstreamSide] = InMemoryTransport.createLinkedPair();
      state.connections += 1;
      upstreamSide.onmessage = (message: JSONRPCMessage) => {
        if ('method' in message && !('id' in message)) {
          if (message.method !== 'notifications/initialized')
            state.notifications.push({ method: message.method, params: message.params });
          return;
        }
        if (!('method' in message) || !('id' in message)) return;
        const { id, method } = message;
        if (method === 'initialize') {
          void upstreamSide.send({
            jsonrpc: '2.0',
            id,
            result: {
              protocolVersion: '2025-06-18',
              capabilities: { tools: { listChanged: true } },
              serverInfo: { name: 'scripted-upstream', version: '9.9.9' },
            },
          } as JSONRPCMessage);
          return;
        }
        state.requests.push({ method, params: message.params });
        const a = answer(method, message.params);
        if (a === 'hang') return;
        if (a === 'close') {
          void upstreamSide.close();
          return;
        }
        void upstreamSide.send({ jsonrpc: '2.0', id, ...a } as JSONRPCMessage);
      };
      void upstreamSide.start();
      return proxySide;
    },
  };
  return state;
}

/** An SDK `Server` upstream on in-memory transports; `sent` records every message it sends. */
export function sdkUpstream(setup: (server: Server) => void): {
  factory: () => Promise<Transport>;
  sent: JSONRPCMessage[];
  servers: Server[];
} {
  const sent: JSONRPCMessage[] = [];
  const servers: Server[] = [];
  return {
    sent,
    servers,
    async factory() {
      const [proxySide, upstreamSide] = InMemoryTransport.createLinkedPair();
      const send = upstreamSide.send.bind(upstreamSide);
      // Installed before connect: it sees what goes on the wire, after any instrumentation.
      upstreamSide.send = async (message, options) => {
        sent.push(message);
        return send(message, options);
      };
      const server = new Server(
        { name: 'sdk-upstream', version: '1.2.3' },
        { capabilities: { tools: {}, logging: {} }, instructions: 'be nice' },
      );
      setup(server);
      servers.push(server);
      await server.connect(upstreamSide);
      return proxySide;
    },
  };
}

/** A proxy over `upstream` and a client connected to it in memory. */
export async function throughProxy(
  options: ToolFailureProxyOptions,
): Promise<{ client: Client; proxy: ToolFailureProxy; close(): Promise<void> }> {
  const proxy = createToolFailureProxy(options);
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(proxySide);
  const client = new Client({ name: 'downstream', version: '1' });
  await client.connect(clientSide);
  return {
    client,
    proxy,
    async close() {
      await client.close();
      await proxy.close();
    },
  };
}
