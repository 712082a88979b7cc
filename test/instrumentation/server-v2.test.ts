/**
 * SDK 2.x's own refusals, classified as on 1.x: a real `McpServer` 2.4 with the instrumentation's
 * patches, invalid arguments answered with the SDK's "Input validation error" result.
 */
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_FAILURE_META_KEY as KEY } from '../../src/tool-failure/index.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry({}, { patch: false });
t.instrumentation._patchLoaded({ v2: [v2Server, v2Client] });

describe('SDK 2.x McpServer refusals', () => {
  it('invalid arguments: capability / invalid_input (not internal_error)', async () => {
    const server = new v2Server.McpServer({ name: 's', version: '1' });
    server.registerTool('add', { inputSchema: z.object({ a: z.number() }) }, async ({ a }) => ({
      content: [{ type: 'text', text: String(a) }],
    }));
    const [a, b] = v2Server.InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new v2Client.Client({ name: 'c', version: '1' });
    await client.connect(a);
    const result = (await client.callTool({ name: 'add', arguments: { a: 'x' } })) as {
      isError?: boolean;
      _meta?: Record<string, { class?: string; code?: string }>;
    };
    await client.close();
    expect(result.isError).toBe(true);
    expect(result._meta?.[KEY]).toMatchObject({ class: 'capability', code: 'invalid_input' });
  });
});
