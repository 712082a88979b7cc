import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../src/index.js';
import {
  ProxyHttpConfigError,
  createRequestGuard,
  refusalOf,
  serveStreamableHttp,
  type ProxyHttpEndpoint,
} from '../src/http.js';
import type { ProxyHttpOptions, ToolFailureProxy } from '../src/types.js';
import { SERVER_ERROR } from '../../tool-failure/src/wire/jsonrpc.js';
import { Client } from '../../../test/helpers/mcp-v1.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';
import { scriptedUpstream } from './harness.js';
import { rawRequest, type Answer } from './raw-http.js';

setupTelemetry();

const TOKEN = 'correct-horse-battery-staple-0123456789';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'attacker', version: '1' },
  },
});

/** One raw POST: unlike `fetch`, it sends exactly the `Host` and `Origin` given. */
function send(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<Answer> {
  return rawRequest(url, { headers, body });
}

function expectRpcError(answer: Answer, status: number): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['mcp-session-id']).toBeUndefined();
  expect(JSON.parse(answer.body)).toStrictEqual({
    jsonrpc: '2.0',
    error: { code: SERVER_ERROR, message: expect.any(String) },
    id: null,
  });
}

describe('HTTP access control (127.0.0.1)', () => {
  let opened: () => number;
  let proxy: ToolFailureProxy;
  let endpoint: ProxyHttpEndpoint | undefined;
  let port: string;

  async function start(options?: ProxyHttpOptions): Promise<string> {
    const upstream = scriptedUpstream(() => ({ result: { content: [] } }));
    opened = () => upstream.connections;
    proxy = createToolFailureProxy({ upstream: upstream.factory, timeoutMs: 5_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, options);
    port = new URL(endpoint.url).port;
    return endpoint.url;
  }

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy.close();
  });

  it('refuses a foreign Host, a foreign Origin and the DNS-rebinding shape: 403, no session, no upstream', async () => {
    const url = await start();
    const refused: Array<Record<string, string>> = [
      { host: 'evil.example' },
      { host: `evil.example:${port}` },
      { host: `127.0.0.1:${Number(port) === 65_535 ? 1 : Number(port) + 1}` },
      { host: `127.0.0.1:${port}`, origin: 'http://evil.example' },
      { host: `127.0.0.1:${port}`, origin: 'null' },
      { host: `localhost:${port}`, origin: `http://localhost.evil.example:${port}` },
      // What a page on a rebound name sends: its own name in both headers.
      { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
    ];
    for (const headers of refused) {
      const answer = await send(url, headers);
      expectRpcError(answer, 403);
      expect(answer.body).toMatch(/Forbidden: (Host|Origin) header not allowed/);
    }
    // Every method and path is checked, not only POST /mcp.
    const get = await send(url.replace('/mcp', '/other'), { host: 'evil.example' }, '');
    expect(get.status).toBe(403);
    expect(opened()).toBe(0);
  });

  it('accepts the loopback names, bare or with the port, with or without a loopback Origin', async () => {
    const url = await start();
    const accepted: Array<Record<string, string>> = [
      { host: `127.0.0.1:${port}` },
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      { host: 'localhost', origin: 'http://127.0.0.1' },
      { host: `[::1]:${port}`, origin: `https://[::1]:${port}` },
    ];
    for (const headers of accepted) {
      const answer = await send(url, headers);
      expect(answer.status, answer.body).toBe(200);
      expect(answer.headers['mcp-session-id']).toEqual(expect.any(String));
    }
    expect(opened()).toBe(1);
    // The SDK's own client (Host 127.0.0.1:PORT, no Origin) works end to end.
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(client.getServerVersion()?.name).toBe('scripted-upstream');
    await client.close();
  });

  it('allowedHosts and allowedOrigins add names; a name without a port matches any port', async () => {
    const url = await start({
      allowedHosts: ['proxy.example', 'fixed.example:8443'],
      allowedOrigins: ['https://app.example/'],
    });
    const good: Array<Record<string, string>> = [
      { host: 'proxy.example:1234', origin: 'https://app.example' },
      { host: 'fixed.example:8443' },
    ];
    for (const headers of good) expect((await send(url, headers)).status).toBe(200);
    const bad: Array<Record<string, string>> = [
      { host: 'fixed.example:8444' },
      { host: 'proxy.example', origin: 'http://app.example' },
    ];
    for (const headers of bad) expectRpcError(await send(url, headers), 403);
  });

  it('a bearer token: missing, wrong, of another length or another scheme -> 401 with WWW-Authenticate; right -> works', async () => {
    const url = await start({ authToken: TOKEN });
    const host = `127.0.0.1:${port}`;
    const wrongSameLength = `${TOKEN.slice(0, -1)}${TOKEN.endsWith('x') ? 'y' : 'x'}`;
    for (const authorization of [
      undefined,
      `Bearer ${wrongSameLength}`,
      'Bearer short',
      `Bearer ${TOKEN}${TOKEN}`,
      `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}`,
      `Bearer`,
    ]) {
      const answer = await send(url, {
        host,
        ...(authorization === undefined ? {} : { authorization }),
      });
      expectRpcError(answer, 401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="mcp-failure-proxy"');
      expect(answer.body).not.toContain(TOKEN);
    }
    // Host/Origin are checked first: a right token from a rebound page is still refused.
    expectRpcError(
      await send(url, { host: 'evil.example', authorization: `Bearer ${TOKEN}` }),
      403,
    );
    expect(opened()).toBe(0);
    expect((await send(url, { host, authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const r = await client.callTool({ name: 'any', arguments: {} });
    expect(r.content).toEqual([]);
    await client.close();
    expect(opened()).toBe(1);
  });

  it('a non-loopback address refuses to start without a token or without allowedHosts', async () => {
    const upstream = scriptedUpstream(() => ({ result: {} }));
    proxy = createToolFailureProxy({ upstream: upstream.factory });
    // Rejected before listening: nothing is ever bound on 0.0.0.0 here.
    await expect(serveStreamableHttp(proxy, '0.0.0.0', 0, {})).rejects.toThrow(
      /0\.0\.0\.0 is not a loopback address: set a bearer token/,
    );
    await expect(
      serveStreamableHttp(proxy, '0.0.0.0', 0, { allowUnauthenticated: true }),
    ).rejects.toThrow(/--allowed-hosts/);
    await expect(serveStreamableHttp(proxy, '127.0.0.1', 0, { authToken: '' })).rejects.toThrow(
      ProxyHttpConfigError,
    );
    await expect(
      serveStreamableHttp(proxy, '127.0.0.1', 0, { allowedOrigins: ['not an origin'] }),
    ).rejects.toThrow(ProxyHttpConfigError);
    await expect(
      serveStreamableHttp(proxy, '127.0.0.1', 0, { allowedHosts: ['a b.example'] }),
    ).rejects.toThrow(ProxyHttpConfigError);
    expect(upstream.connections).toBe(0);
  });
});

describe('refusalOf (pure)', () => {
  it('treats 127.x, ::1 and localhost as loopback listeners, and nothing else', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', '::ffff:127.0.0.1'])
      expect(createRequestGuard(host, {}).loopback).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com'])
      expect(createRequestGuard(host, {}).loopback).toBe(false);
  });

  it('a non-loopback listener accepts only the listed Host and Origin values', () => {
    const guard = createRequestGuard('0.0.0.0', {
      allowedHosts: ['proxy.example'],
      allowedOrigins: ['https://app.example'],
    });
    expect(refusalOf(guard, { host: 'localhost' }, 80)?.status).toBe(403);
    expect(refusalOf(guard, { host: 'proxy.example' }, 80)).toBeUndefined();
    expect(
      refusalOf(guard, { host: 'proxy.example', origin: 'http://localhost' }, 80)?.status,
    ).toBe(403);
    expect(
      refusalOf(guard, { host: 'PROXY.example', origin: 'https://APP.example' }, 80),
    ).toBeUndefined();
    expect(refusalOf(guard, {}, 80)?.status).toBe(403);
  });
});
