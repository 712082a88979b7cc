/**
 * Auto mode (prototypes patched through the module hooks) and manual mode (`instrumentServer` on
 * one object) apply the same patches, so a server behaves the same in both: here, a tool whose
 * callback is replaced with `registeredTool.update({ callback })`, registered before or after the
 * server is instrumented, on SDK 1.x and 2.x.
 */
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { Client, InMemoryTransport, McpServer } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry({}, { patch: false });

type Registered = { update(updates: { callback: () => Promise<never> }): void };
type AnyServer = {
  registerTool(name: string, config: object, cb: () => Promise<unknown>): Registered;
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
};

const SDKS = {
  '1.x': {
    server: () => new McpServer({ name: 's', version: '1' }) as unknown as AnyServer,
    client: () => new Client({ name: 'c', version: '1' }),
    pair: () => InMemoryTransport.createLinkedPair(),
  },
  '2.x': {
    server: () => new v2Server.McpServer({ name: 's', version: '1' }) as unknown as AnyServer,
    client: () => new v2Client.Client({ name: 'c', version: '1' }),
    pair: () => v2Server.InMemoryTransport.createLinkedPair(),
  },
} as const;

const reset = async (): Promise<never> => {
  throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
};

/** The failure code a call of a tool gets after `update({ callback })`, registered `when`. */
async function codeAfterUpdate(
  sdk: keyof typeof SDKS,
  instrument: (server: AnyServer) => void,
  when: 'before' | 'after',
): Promise<unknown> {
  const { server: makeServer, client: makeClient, pair } = SDKS[sdk];
  const server = makeServer();
  const ok = async () => ({ content: [{ type: 'text', text: 'ok' }] });
  let tool: Registered | undefined;
  if (when === 'before') tool = server.registerTool('t', {}, ok);
  instrument(server);
  if (when === 'after') tool = server.registerTool('t', {}, ok);
  tool!.update({ callback: reset });
  const [a, b] = pair();
  const client = makeClient();
  await server.connect(b);
  await client.connect(a as never);
  const result = (await client.callTool({ name: 't', arguments: {} })) as {
    _meta?: Record<string, { code?: unknown }>;
  };
  await client.close();
  await server.close();
  return result._meta?.[KEY]?.code;
}

describe.each(['1.x', '2.x'] as const)('SDK %s: a tool callback replaced by update()', (sdk) => {
  it.each(['before', 'after'] as const)(
    'manual mode, tool registered %s instrumentServer: classified like auto mode',
    async (when) => {
      const manual = await codeAfterUpdate(
        sdk,
        (server) => t.instrumentation.instrumentServer(server),
        when,
      );
      expect(manual).toBe('retryable_transient_error');
    },
  );
});

describe('auto mode (patched prototypes)', () => {
  it.each(['1.x', '2.x'] as const)('SDK %s: the updated callback is classified', async (sdk) => {
    t.instrumentation._patchLoaded({ v1Protocol, v1Mcp, v2: [v2Server, v2Client] });
    expect(await codeAfterUpdate(sdk, () => undefined, 'after')).toBe('retryable_transient_error');
  });
});
