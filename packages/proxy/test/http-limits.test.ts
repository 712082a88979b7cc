// The limits of the proxy's Streamable HTTP endpoint, each one hit for real on loopback: the
// answer (status, JSON-RPC error body), the count in mcp.proxy.refused_requests, and that the
// endpoint still serves good requests afterwards.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../src/index.js';
import { serveStreamableHttp, type ProxyHttpEndpoint } from '../src/http.js';
import { DEFAULT_HTTP_LIMITS, REFUSALS, type RefusalReason } from '../src/http-limits.js';
import type { ProxyHttpOptions, ToolFailureProxy } from '../src/types.js';
import {
  METRIC_MCP_PROXY_ACTIVE_SESSIONS,
  METRIC_MCP_PROXY_EXPIRED_SESSIONS,
  METRIC_MCP_PROXY_REFUSED_REQUESTS,
} from '../../../src/semconv.js';
import { Client } from '../../../test/helpers/mcp-v1.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';
import { scriptedUpstream } from './harness.js';
import { rawRequest, type Answer } from './raw-http.js';

const telemetry = setupTelemetry();

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

/** One POST to `url`, the body JSON-encoded unless it is a string. */
function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return rawRequest(url, { headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** The JSON-RPC message of an answer sent as JSON or as one SSE event. */
function messageOf(answer: Answer): {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
} {
  const data = /^data: (.*)$/m.exec(answer.body)?.[1];
  return JSON.parse(data ?? answer.body) as ReturnType<typeof messageOf>;
}

function expectRefusal(answer: Answer, reason: RefusalReason): void {
  const { status, code, message } = REFUSALS[reason];
  expect(answer.status, answer.body).toBe(status);
  expect(JSON.parse(answer.body)).toStrictEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code, message },
  });
}

async function refusals(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const p of await telemetry.metric(METRIC_MCP_PROXY_REFUSED_REQUESTS))
    counts[String(p.attributes['error.type'])] = Number(p.value);
  return counts;
}

async function metricSum(name: string): Promise<number> {
  let sum = 0;
  for (const p of await telemetry.metric(name)) sum += Number(p.value);
  return sum;
}

/** Raw bytes over TCP: what an HTTP client library would never send. */
function rawSocket(url: string): { socket: Socket; received: Promise<string> } {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  const received = new Promise<string>((resolve) => {
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('close', () => resolve(data));
    socket.on('error', () => resolve(data));
  });
  return { socket, received };
}

describe('HTTP limits', () => {
  let proxy: ToolFailureProxy;
  let endpoint: ProxyHttpEndpoint | undefined;

  async function start(options: ProxyHttpOptions): Promise<string> {
    // Tool "slow" never answers: its request stays in flight until the proxy's timeout.
    const upstream = scriptedUpstream((method, params) =>
      method === 'tools/call' && (params as { name?: string }).name === 'slow'
        ? 'hang'
        : { result: { content: [{ type: 'text', text: 'ok' }] } },
    );
    proxy = createToolFailureProxy({ upstream: upstream.factory, timeoutMs: 600 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, options);
    return endpoint.url;
  }

  /** Opens a session by hand; resolves to its id. */
  async function session(url: string): Promise<string> {
    const answer = await post(url, INIT);
    expect(answer.status, answer.body).toBe(200);
    const sid = answer.headers['mcp-session-id'];
    expect(sid).toEqual(expect.any(String));
    await post(
      url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': String(sid) },
    );
    return String(sid);
  }

  function call(url: string, sid: string, name: string, id: number): Promise<Answer> {
    return post(
      url,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
      { 'mcp-session-id': sid },
    );
  }

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy.close();
  });

  it('every limit has a documented default and the endpoint reports the limits in force', async () => {
    await start({ limits: { maxSessions: 7 } });
    expect(endpoint?.limits).toStrictEqual({ ...DEFAULT_HTTP_LIMITS, maxSessions: 7 });
    await expect(
      serveStreamableHttp(proxy, '127.0.0.1', 0, { limits: { maxSessions: 0 } }),
    ).rejects.toThrow(/maxSessions must be an integer from 1/);
    await expect(
      serveStreamableHttp(proxy, '127.0.0.1', 0, {
        limits: { headersTimeoutMs: 5, requestTimeoutMs: 4 },
      }),
    ).rejects.toThrow(/headersTimeoutMs must not exceed requestTimeoutMs/);
  });

  it('maxSessions: one initialize too many gets 503 with Retry-After; a closed session frees its place', async () => {
    const url = await start({ limits: { maxSessions: 2 } });
    const before = (await refusals()).session_limit ?? 0;
    const a = await session(url);
    await session(url);
    const third = await post(url, INIT);
    expectRefusal(third, 'session_limit');
    expect(third.headers['retry-after']).toBe('5');
    expect(third.headers['mcp-session-id']).toBeUndefined();
    expect(endpoint?.sessions()).toBe(2);
    expect((await refusals()).session_limit).toBe(before + 1);
    // DELETE ends session a: a new one fits again.
    await rawRequest(url, { method: 'DELETE', headers: { 'mcp-session-id': a } });
    expect(endpoint?.sessions()).toBe(1);
    expect((await post(url, INIT)).status).toBe(200);
  });

  it('sessionIdleMs: an idle session is closed and counted; a busy one is kept', async () => {
    const url = await start({ limits: { sessionIdleMs: 300 } });
    const activeBefore = await metricSum(METRIC_MCP_PROXY_ACTIVE_SESSIONS);
    const expiredBefore = await metricSum(METRIC_MCP_PROXY_EXPIRED_SESSIONS);
    const idle = await session(url);
    const busy = await session(url);
    expect(await metricSum(METRIC_MCP_PROXY_ACTIVE_SESSIONS)).toBe(activeBefore + 2);
    // The busy session makes a call every 100 ms for 600 ms: never idle for 300 ms.
    for (let i = 0; i < 6; i += 1) {
      expect(messageOf(await call(url, busy, 'fast', 10 + i)).result?.content).toBeDefined();
      await new Promise((r) => setTimeout(r, 100));
    }
    expectRefusal(await call(url, idle, 'fast', 2), 'session_not_found');
    expect(messageOf(await call(url, busy, 'fast', 3)).result).toBeDefined();
    expect(endpoint?.sessions()).toBe(1);
    expect(await metricSum(METRIC_MCP_PROXY_EXPIRED_SESSIONS)).toBe(expiredBefore + 1);
    expect(await metricSum(METRIC_MCP_PROXY_ACTIVE_SESSIONS)).toBe(activeBefore + 1);
  });

  it('maxInFlightPerSession: a third call in flight gets 429; other sessions and later calls are served', async () => {
    const url = await start({ limits: { maxInFlightPerSession: 2 } });
    const sid = await session(url);
    const other = await session(url);
    const slow = [call(url, sid, 'slow', 2), call(url, sid, 'slow', 3)];
    await new Promise((r) => setTimeout(r, 100));
    const refused = await call(url, sid, 'fast', 4);
    expectRefusal(refused, 'in_flight_limit');
    expect(refused.headers['retry-after']).toBe('1');
    // Another session is not held back by this one's calls.
    expect(messageOf(await call(url, other, 'fast', 5)).result).toBeDefined();
    // The slow calls end with the proxy's timeout failure; then the session has room again.
    for (const answer of await Promise.all(slow)) {
      const result = messageOf(answer).result;
      expect(result?.isError).toBe(true);
      expect(result?._meta).toMatchObject({
        'io.modelcontextprotocol/toolFailure': { class: 'reliability', code: 'timeout' },
      });
    }
    expect(messageOf(await call(url, sid, 'fast', 6)).result?.isError).toBeUndefined();
    expect((await refusals()).in_flight_limit).toBeGreaterThanOrEqual(1);
  });

  it('maxBodyBytes holds on every request: before a session, inside one, with and without Content-Length', async () => {
    const url = await start({ limits: { maxBodyBytes: 1024 } });
    const big = { ...INIT, params: { ...INIT.params, pad: 'x'.repeat(2048) } };
    expectRefusal(await post(url, big), 'body_too_large');
    const sid = await session(url);
    const bigCall = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'fast', arguments: { pad: 'x'.repeat(2048) } },
    };
    expectRefusal(await post(url, bigCall, { 'mcp-session-id': sid }), 'body_too_large');
    // Chunked (no Content-Length): counted while reading.
    const u = new URL(url);
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sid,
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          let data = '';
          res.on('data', (d: Buffer) => (data += d.toString()));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }),
          );
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 4; i += 1) req.write('x'.repeat(512));
      req.end();
    });
    expectRefusal(chunked, 'body_too_large');
    // The session still works.
    expect(messageOf(await call(url, sid, 'fast', 10)).result).toBeDefined();
    expect((await refusals()).body_too_large).toBeGreaterThanOrEqual(3);
  });

  it('a body that is not JSON, inside a session: 400 parse error, the session goes on', async () => {
    const url = await start({});
    const sid = await session(url);
    expectRefusal(await post(url, '{"jsonrpc":', { 'mcp-session-id': sid }), 'parse_error');
    expect(messageOf(await call(url, sid, 'fast', 2)).result).toBeDefined();
  });

  it('maxHeaderBytes: a head too large gets 431 with a JSON-RPC body', async () => {
    const url = await start({ limits: { maxHeaderBytes: 1024 } });
    const answer = await post(url, INIT, { 'x-pad': 'y'.repeat(2048) });
    expectRefusal(answer, 'header_too_large');
    expect((await refusals()).header_too_large).toBeGreaterThanOrEqual(1);
    expect((await post(url, INIT)).status).toBe(200);
  });

  it('slow clients: headers or a body that never finish get 408 and the connection is closed', async () => {
    const url = await start({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const before = (await refusals()).request_timeout ?? 0;
    const started = Date.now();
    // Headers sent one byte at a time and never finished (slowloris).
    const head = rawSocket(url);
    const line = `POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nX-Slow: `;
    let i = 0;
    const drip = setInterval(() => {
      if (!head.socket.destroyed) head.socket.write(line[i % line.length] ?? 'a');
      i += 1;
    }, 20);
    // A body announced as 1,000 bytes of which 10 arrive.
    const body = rawSocket(url);
    body.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\ncontent-type: application/json\r\n` +
        'accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{"jsonrpc"',
    );
    const [headAnswer, bodyAnswer] = await Promise.all([head.received, body.received]);
    clearInterval(drip);
    const elapsed = Date.now() - started;
    for (const answer of [headAnswer, bodyAnswer]) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toStrictEqual(
        JSON.parse(
          `{"jsonrpc":"2.0","id":null,"error":{"code":${REFUSALS.request_timeout.code},"message":"${REFUSALS.request_timeout.message}"}}`,
        ),
      );
    }
    // Closed within the timeouts plus Node's checking interval (150 ms here) and a margin.
    expect(elapsed).toBeLessThan(5_000);
    expect((await refusals()).request_timeout).toBe(before + 2);
    expect((await post(url, INIT)).status).toBe(200);
  });

  it('a keep-alive connection older than the timeouts: its next request is timed on its own', async () => {
    // The timeouts apply to each request, not to the connection: a body a moment behind its head
    // on a connection older than both timeouts is still in time.
    const url = await start({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const raw = rawSocket(url);
    const body = JSON.stringify(INIT);
    const head =
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
    let data = '';
    raw.socket.on('data', (d: Buffer) => (data += d.toString()));
    raw.socket.write(`${head}\r\n${body}`);
    await new Promise((r) => setTimeout(r, 900));
    expect(data).toMatch(/^HTTP\/1\.1 200 /);
    data = '';
    // Its head complete, its body 200 ms later: well inside requestTimeoutMs of this request.
    raw.socket.write(`${head}\r\n`);
    await new Promise((r) => setTimeout(r, 200));
    raw.socket.write(body);
    await new Promise((r) => setTimeout(r, 300));
    expect(data).toMatch(/^HTTP\/1\.1 200 /);
    raw.socket.destroy();
  });

  it('bytes that are not HTTP get 400 with a JSON-RPC body', async () => {
    const url = await start({});
    const raw = rawSocket(url);
    raw.socket.write('\x16\x03\x01\x00\xa5 definitely not http\r\n\r\n');
    const answer = await raw.received;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(REFUSALS.bad_request.message);
  });

  it('a path other than /mcp gets 404 with a JSON-RPC body', async () => {
    const url = await start({});
    expectRefusal(await post(url.replace('/mcp', '/admin'), INIT), 'not_found');
  });
});

/** A POST whose client goes away `afterMs` after sending it. */
function abandonedPost(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  afterMs: number,
): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.end(JSON.stringify(body));
    setTimeout(() => req.destroy(), afterMs);
  });
}

describe('clients that go away, and what they leave', () => {
  let proxy: ToolFailureProxy;
  let endpoint: ProxyHttpEndpoint | undefined;

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy.close();
  });

  it('an initialize abandoned while the upstream is being reached leaves no session', async () => {
    const upstream = scriptedUpstream(() => ({ result: { content: [] } }));
    // The upstream takes 300 ms to reach.
    const slowFactory = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return upstream.factory();
    };
    proxy = createToolFailureProxy({ upstream: slowFactory, timeoutMs: 2_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, {
      limits: { maxSessions: 2, sessionIdleMs: 60_000 },
    });
    await Promise.all([
      abandonedPost(endpoint.url, INIT, {}, 50),
      abandonedPost(endpoint.url, INIT, {}, 50),
    ]);
    await new Promise((r) => setTimeout(r, 600));
    expect(endpoint.sessions()).toBe(0);
    // Both places are free: two new sessions open.
    for (let i = 0; i < 2; i += 1) expect((await post(endpoint.url, INIT)).status).toBe(200);
    expect(endpoint.sessions()).toBe(2);
  });

  it('a call abandoned by its client is cancelled upstream, and frees its place in the in-flight limits', async () => {
    const upstream = scriptedUpstream((method) =>
      method === 'tools/call' ? 'hang' : { result: {} },
    );
    proxy = createToolFailureProxy({ upstream: upstream.factory, timeoutMs: 30_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, {
      limits: { maxInFlightPerSession: 2 },
    });
    const url = endpoint.url;
    const init = await post(url, INIT);
    const sid = String(init.headers['mcp-session-id']);
    await post(
      url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': sid },
    );
    const callBody = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow', arguments: {} },
    });
    for (let i = 0; i < 10; i += 1)
      await abandonedPost(url, callBody(100 + i), { 'mcp-session-id': sid }, 50);
    await new Promise((r) => setTimeout(r, 200));
    const calls = upstream.requests.filter((r) => r.method === 'tools/call').length;
    const cancelled = upstream.notifications.filter((n) => n.method === 'notifications/cancelled');
    expect(calls).toBe(10);
    expect(cancelled).toHaveLength(10);
  });

  it('a stateless POST abandoned while the upstream is being reached is never relayed', async () => {
    const upstream = scriptedUpstream(() => ({ result: { content: [] } }));
    let first = true;
    const slowFactory = async () => {
      if (first) await new Promise((r) => setTimeout(r, 300));
      first = false;
      return upstream.factory();
    };
    proxy = createToolFailureProxy({ upstream: slowFactory, timeoutMs: 2_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { stateless: true });
    const callBody = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'x', arguments: {} },
    };
    await abandonedPost(endpoint.url, callBody, {}, 50);
    await new Promise((r) => setTimeout(r, 500));
    expect(upstream.requests.filter((r) => r.method === 'tools/call')).toHaveLength(0);
    expect(messageOf(await post(endpoint.url, { ...callBody, id: 2 })).result).toBeDefined();
    expect(upstream.requests.filter((r) => r.method === 'tools/call')).toHaveLength(1);
  });
});

describe('memory held by request bodies', () => {
  let proxy: ToolFailureProxy;
  let endpoint: ProxyHttpEndpoint | undefined;

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy.close();
  });

  it('an initialize-sized limit before a session: a 100 KiB body without a session gets 413', async () => {
    const upstream = scriptedUpstream(() => ({ result: {} }));
    proxy = createToolFailureProxy({ upstream: upstream.factory });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, {});
    const big = { ...INIT, params: { ...INIT.params, pad: 'x'.repeat(100 * 1024) } };
    expectRefusal(await post(endpoint.url, big), 'body_too_large');
    expect(upstream.connections).toBe(0);
  });

  it('maxBufferedBytes: bodies being read at once beyond it get 503 with Retry-After', async () => {
    const upstream = scriptedUpstream(() => ({ result: { content: [] } }));
    proxy = createToolFailureProxy({ upstream: upstream.factory });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, {
      stateless: true,
      limits: { maxBodyBytes: 8 * 1024, maxBufferedBytes: 10 * 1024 },
    });
    const host = new URL(endpoint.url).host;
    const head = (length: number) =>
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\ncontent-length: ${length}\r\n\r\n`;
    // Two bodies of 7,000 bytes, each sent but for its last byte: 12,000 bytes held at once.
    const a = rawSocket(endpoint.url);
    a.socket.write(head(7000) + ' '.repeat(6000));
    await new Promise((r) => setTimeout(r, 100));
    const b = rawSocket(endpoint.url);
    b.socket.write(head(7000) + ' '.repeat(6000));
    const refused = await b.received;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.toLowerCase()).toContain('retry-after: 1');
    expect(refused).toContain(REFUSALS.buffer_limit.message);
    // The first body is still read to its end; its bytes are released afterwards.
    a.socket.end(' '.repeat(999) + '1');
    expect(await a.received).toMatch(/^HTTP\/1\.1 400 /);
    expect(
      messageOf(
        await post(endpoint.url, {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'x', arguments: {} },
        }),
      ).result,
    ).toBeDefined();
    expect((await refusals()).buffer_limit).toBeGreaterThanOrEqual(1);
  });

  it('session limits with a stateless endpoint are a configuration error, not ignored', async () => {
    const upstream = scriptedUpstream(() => ({ result: {} }));
    proxy = createToolFailureProxy({ upstream: upstream.factory });
    for (const limits of [{ maxSessions: 5 }, { sessionIdleMs: 5 }, { maxInFlightPerSession: 5 }])
      await expect(
        serveStreamableHttp(proxy, '127.0.0.1', 0, { stateless: true, limits }),
      ).rejects.toThrow(/applies to sessions, and a stateless endpoint keeps none/);
  });

  it('every refusal reason is documented in docs/proxy.md and docs/telemetry.md', () => {
    const proxyDoc = readFileSync(new URL('../../../docs/proxy.md', import.meta.url), 'utf8');
    const telemetryDoc = readFileSync(
      new URL('../../../docs/telemetry.md', import.meta.url),
      'utf8',
    );
    for (const reason of Object.keys(REFUSALS)) {
      expect(proxyDoc, reason).toContain(`\`${reason}\``);
      expect(telemetryDoc, reason).toContain(`\`${reason}\``);
    }
  });
});

describe('stateless mode', () => {
  let proxy: ToolFailureProxy;
  let endpoint: ProxyHttpEndpoint | undefined;

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy.close();
  });

  it('keeps no session: no session id, tools/call without initialize, GET and DELETE get 405', async () => {
    const upstream = scriptedUpstream((method) =>
      method === 'tools/list'
        ? { result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } }
        : { result: { content: [{ type: 'text', text: 'ok' }] } },
    );
    proxy = createToolFailureProxy({ upstream: upstream.factory, timeoutMs: 2_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { stateless: true });
    const url = endpoint.url;
    const init = await post(url, INIT);
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    const called = await post(url, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: {} },
    });
    expect(messageOf(called).result?.content).toStrictEqual([{ type: 'text', text: 'ok' }]);
    for (const method of ['GET', 'DELETE']) {
      const answer = await rawRequest(url, { method, headers: { accept: 'text/event-stream' } });
      expectRefusal(answer, 'method_not_allowed');
      expect(answer.headers.allow).toBe('POST');
    }
    // The SDK's own client works against it, over many requests, and nothing is kept.
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    for (let i = 0; i < 5; i += 1)
      expect((await client.callTool({ name: 'echo', arguments: {} })).content).toHaveLength(1);
    await client.close();
    expect(endpoint.sessions()).toBe(0);
  });

  it('maxInFlight bounds the endpoint as a whole', async () => {
    const upstream = scriptedUpstream((method) =>
      method === 'tools/call' ? 'hang' : { result: {} },
    );
    proxy = createToolFailureProxy({ upstream: upstream.factory, timeoutMs: 500 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, {
      stateless: true,
      limits: { maxInFlight: 2 },
    });
    const url = endpoint.url;
    const callBody = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 't', arguments: {} },
    });
    const held = [post(url, callBody(1)), post(url, callBody(2))];
    await new Promise((r) => setTimeout(r, 100));
    expectRefusal(await post(url, callBody(3)), 'in_flight_limit');
    for (const answer of await Promise.all(held))
      expect(messageOf(answer).result?.isError).toBe(true);
    expect(messageOf(await post(url, callBody(4))).result?.isError).toBe(true);
  });
});
