// Scale-out: two mcp-failure-proxy processes in front of one upstream, and one client whose
// requests a round-robin balancer alternates between them. With --stateless every call is
// answered, whichever replica takes it; without it, the second replica knows no session.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { Client, McpServer } from '../../../test/helpers/mcp-v1.js';
import { startCli } from './cli-process.js';

/** The upstream's failure object, sent as is: the replicas must relay it unchanged. */
const FAILURE = {
  class: 'reliability',
  code: 'unavailable',
  retryable: true,
  correlationId: 'upstream-4f1c',
  agentGuidance: 'The backend is restarting.',
  'x-vendor': { nested: [1, 'two', null] },
};

describe('scale-out: two stateless proxy replicas behind one balancer', () => {
  let upstream: HttpServer;
  let upstreamUrl: string;
  let calls = 0;
  const replicas: Array<ReturnType<typeof startCli>> = [];
  const urls: string[] = [];

  beforeAll(async () => {
    // A stateless upstream: a fresh server per request, as the SDK's stateless mode runs.
    upstream = createServer((req, res) => {
      const server = new McpServer({ name: 'shared-upstream', version: '1' });
      server.registerTool('count', { annotations: { idempotentHint: true } }, async () => {
        calls += 1;
        return { content: [{ type: 'text', text: String(calls) }] };
      });
      server.registerTool('down', {}, async () => ({
        isError: true,
        content: [{ type: 'text', text: 'backend restarting' }],
        _meta: { [KEY]: FAILURE },
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });

  async function startReplicas(extra: string[]): Promise<void> {
    await Promise.all(replicas.splice(0).map((r) => r.stop()));
    urls.length = 0;
    for (let i = 0; i < 2; i += 1) {
      const cli = startCli(['--listen', '127.0.0.1:0', ...extra, '--upstream-url', upstreamUrl]);
      replicas.push(cli);
      urls.push(await cli.listening);
    }
  }

  /** A client whose every HTTP request goes to the next replica in turn; `served` counts them. */
  async function balancedClient(): Promise<{ client: Client; served: number[] }> {
    const served = [0, 0];
    let next = 0;
    const balance = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const i = next;
      next = (next + 1) % 2;
      served[i] = (served[i] ?? 0) + 1;
      const target = new URL(urls[i] ?? '');
      const url = new URL(input instanceof Request ? input.url : input);
      url.host = target.host;
      return fetch(url, init);
    };
    const client = new Client({ name: 'balanced', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(urls[0] ?? ''), { fetch: balance }),
    );
    return { client, served };
  }

  it('--stateless: every call of one client is answered, both replicas serve, _meta arrives unchanged', async () => {
    await startReplicas(['--stateless']);
    const { client, served } = await balancedClient();
    const before = calls;
    for (let i = 0; i < 10; i += 1) {
      const r = await client.callTool({ name: 'count', arguments: {} });
      expect(r.isError).toBeUndefined();
      expect(Number((r.content as Array<{ text: string }>)[0]?.text)).toBe(before + i + 1);
    }
    for (let i = 0; i < 4; i += 1) {
      const r = await client.callTool({ name: 'down', arguments: {} });
      expect(r._meta).toStrictEqual({ [KEY]: FAILURE });
    }
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['count', 'down']);
    await client.close();
    expect(calls - before).toBe(10);
    // initialize, notifications/initialized, 10 + 4 calls and tools/list, alternating.
    expect(served[0]).toBeGreaterThanOrEqual(8);
    expect(served[1]).toBeGreaterThanOrEqual(8);
  });

  it('without --stateless the other replica knows no session: the contrast that --stateless removes', async () => {
    await startReplicas([]);
    let error: unknown;
    try {
      // initialize reaches replica 0; the next request, replica 1, which never saw the session.
      const { client } = await balancedClient();
      try {
        await client.callTool({ name: 'count', arguments: {} });
      } finally {
        await client.close();
      }
    } catch (e) {
      error = e;
    }
    expect(String(error)).toMatch(/Session not found|404/);
  });
});
