import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('with no OpenTelemetry SDK registered', () => {
  it('still classifies failures, with a random 32-hex correlationId instead of the all-zero trace ID', () => {
    const script = `
      import { Client } from '@modelcontextprotocol/sdk/client/index.js';
      import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
      import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
      import { instrumentClient, instrumentServer } from '@omcp/instrumentation-mcp';
      const server = new McpServer({ name: 's', version: '1' });
      server.registerTool('deny', {}, async () => { throw Object.assign(new Error('no'), { status: 403 }); });
      instrumentServer(server);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(b);
      const client = instrumentClient(new Client({ name: 'c', version: '1' }));
      await client.connect(a);
      const ids = [];
      for (let i = 0; i < 2; i++) {
        const r = await client.callTool({ name: 'deny', arguments: {} });
        ids.push(r._meta['io.modelcontextprotocol/toolFailure']);
      }
      console.log(JSON.stringify(ids));
      await client.close();
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    const [first, second] = JSON.parse(out) as Array<{
      class: string;
      code: string;
      correlationId: string;
    }>;
    expect(first).toMatchObject({ class: 'governance', code: 'permission_denied' });
    expect(first?.correlationId).toMatch(/^[0-9a-f]{32}$/);
    expect(first?.correlationId).not.toBe('0'.repeat(32));
    expect(first?.correlationId).not.toBe(second?.correlationId);
  });
});
