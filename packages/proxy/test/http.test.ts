import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../src/index.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { serveStreamableHttp } from '../src/http.js';
import { Client, McpServer } from '../../../test/helpers/mcp-v1.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';

setupTelemetry();
const failure = { class: 'governance', code: 'auth_required', correlationId: 'up-1', 'x-k': 1 };

describe('Streamable HTTP on both sides (127.0.0.1)', () => {
  let upstream: HttpServer;
  let upstreamUrl: URL;
  beforeAll(async () => {
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    upstream = createServer((req, res) => {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (transport === undefined) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        const server = new McpServer({ name: 'http-upstream', version: '1' });
        server.registerTool('login', {}, async () => ({
          content: [{ type: 'text', text: 'log in first' }],
          isError: true,
          _meta: { [KEY]: failure },
        }));
        void server.connect(created);
        transport = created;
      }
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });

  it('relays a failure object unchanged over HTTP → proxy → HTTP', async () => {
    const proxy = createToolFailureProxy({
      upstream: () => new StreamableHTTPClientTransport(upstreamUrl),
      timeoutMs: 5_000,
    });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0);
    const client = new Client({ name: 'c', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      expect(client.getServerVersion()?.name).toBe('http-upstream');
      const r = await client.callTool({ name: 'login', arguments: {} });
      expect(r._meta?.[KEY]).toStrictEqual(failure);
    } finally {
      await client.close();
      await endpoint.close();
      await proxy.close();
    }
  });

  it('requests without a session are answered at once, and open no session and no upstream connection', async () => {
    let opened = 0;
    const proxy = createToolFailureProxy({
      upstream: () => {
        opened++;
        return new StreamableHTTPClientTransport(upstreamUrl);
      },
      timeoutMs: 5_000,
    });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0);
    const post = (body: string) =>
      fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
    try {
      const answers = [
        await post('garbage'),
        await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
        await fetch(endpoint.url, { method: 'GET' }),
        await fetch(endpoint.url, { method: 'DELETE' }),
      ];
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{
        error: { code: number };
      }>;
      expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400]);
      expect(bodies.map((b) => b.error.code)).toEqual([-32700, -32000, -32000, -32000]);
      for (const b of bodies) expect(b).toMatchObject({ jsonrpc: '2.0', id: null });
      for (let i = 0; i < 200; i++) await (await post('garbage')).arrayBuffer();
      expect(opened).toBe(0);
      // A real session still works after all that, and opens the upstream once.
      const client = new Client({ name: 'c', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      expect(client.getServerVersion()?.name).toBe('http-upstream');
      await client.close();
      expect(opened).toBe(1);
    } finally {
      await endpoint.close();
      await proxy.close();
    }
  });

  it('connection refused upstream: a clear upstream_unavailable failure', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    const proxy = createToolFailureProxy({
      upstream: () => new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
      connectTimeoutMs: 2_000,
    });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0);
    const client = new Client({ name: 'c', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      const r = await client.callTool({ name: 'any', arguments: {} });
      expect(r._meta?.[KEY]).toMatchObject({
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: true,
      });
    } finally {
      await client.close();
      await endpoint.close();
      await proxy.close();
    }
  });
});
