import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolFailure } from '../../packages/tool-failure/src/index.js';
import type { ToolFailureInit } from '../../packages/tool-failure/src/index.js';

/** How a test tool answers on its n-th call (1-based). */
export type Script = (n: number) => CallToolResult | Promise<CallToolResult>;

export interface ToolSpec {
  annotations?: { idempotentHint?: boolean; readOnlyHint?: boolean };
  script: Script;
}

const ok = (): CallToolResult => ({ content: [{ type: 'text', text: 'ok' }] });

/** A failure result built with the package's own `toolFailure()`. */
export function fail(init: ToolFailureInit): CallToolResult {
  return toolFailure(init) as CallToolResult;
}

/** Fails with `init` on the first `times` calls, then succeeds. */
export function failTimes(times: number, init: () => ToolFailureInit): Script {
  return (n) => (n <= times ? fail(init()) : ok());
}

export const transient = (over: Partial<ToolFailureInit> = {}): ToolFailureInit => ({
  class: 'reliability',
  code: 'retryable_transient_error',
  retryable: true,
  ...over,
});

/**
 * Registers each of `tools` on `server` (an McpServer of SDK 1.x or 2.x): its script answers
 * the n-th call, counted per tool in the map returned.
 */
export function registerCountingTools<R>(
  server: {
    registerTool(
      name: string,
      config: { description: string; annotations?: ToolSpec['annotations'] },
      callback: () => Promise<R>,
    ): unknown;
  },
  tools: Record<
    string,
    { annotations?: ToolSpec['annotations']; script: (n: number) => R | Promise<R> }
  >,
): Map<string, number> {
  const calls = new Map<string, number>();
  for (const [name, spec] of Object.entries(tools)) {
    server.registerTool(
      name,
      {
        description: `test tool ${name}`,
        ...(spec.annotations ? { annotations: spec.annotations } : {}),
      },
      async () => {
        const n = (calls.get(name) ?? 0) + 1;
        calls.set(name, n);
        return spec.script(n);
      },
    );
  }
  return calls;
}

/** A real SDK 1.x client and McpServer over a linked in-memory pair, counting calls per tool. */
export async function v1Pair(tools: Record<string, ToolSpec>): Promise<{
  client: Client;
  calls: Map<string, number>;
  listCalls: () => number;
  close: () => Promise<void>;
}> {
  const server = new McpServer({ name: 'retry-test-server', version: '1.0.0' });
  const calls = registerCountingTools(server, tools);
  let lists = 0;
  const client = new Client({ name: 'retry-test-client', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const serverSend = serverTransport.send.bind(serverTransport);
  serverTransport.send = async (message, options) => {
    if ('result' in message && typeof message.result === 'object' && 'tools' in message.result)
      lists += 1;
    return serverSend(message, options);
  };
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    client,
    calls,
    listCalls: () => lists,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export { ok };
