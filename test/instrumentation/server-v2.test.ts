/**
 * SDK 2.x's own refusals, classified as on 1.x: a real `McpServer` 2.4 with the instrumentation's
 * patches, invalid arguments answered with the SDK's "Input validation error" result.
 */
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
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

describe('classification rules as data, on a real server', () => {
  it('a rule matches what the tool threw, after errorClassifier and before the built-in rules', async () => {
    const server = new v2Server.McpServer({ name: 's', version: '1' });
    server.registerTool('read_text_file', {}, async () => {
      throw new Error('Access denied - path outside allowed directories: /etc/passwd');
    });
    server.registerTool('other', {}, async () => {
      throw Object.assign(new Error('gone'), { code: 'ENOENT' });
    });
    t.instrumentation.setConfig({
      classificationRules: [
        {
          match: { message: '^Access denied - path outside allowed directories' },
          class: 'governance',
          code: 'permission_denied',
        },
      ],
    });
    try {
      const [a, b] = v2Server.InMemoryTransport.createLinkedPair();
      await server.connect(b);
      const client = new v2Client.Client({ name: 'c', version: '1' });
      await client.connect(a);
      const denied = (await client.callTool({ name: 'read_text_file', arguments: {} })) as {
        _meta?: Record<string, { class?: string; code?: string }>;
      };
      const other = (await client.callTool({ name: 'other', arguments: {} })) as {
        _meta?: Record<string, { class?: string; code?: string }>;
      };
      await client.close();
      expect(denied._meta?.[KEY]).toMatchObject({ class: 'governance', code: 'permission_denied' });
      // No rule matches: the built-in rules classify (ENOENT).
      expect(other._meta?.[KEY]).toMatchObject({ class: 'capability', code: 'resource_not_found' });
    } finally {
      t.instrumentation.setConfig({});
    }
  });
});
