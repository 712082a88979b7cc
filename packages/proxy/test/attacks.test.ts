// The attacks of a black-box test of the proxy's gateway (issue 31) that did not hold, each
// reproduced against the proxy in this process: batches past the in-flight limits (D2), invented
// tool names against the circuits (D3), an HTTP upstream lost mid-life (D4), a duplicate
// in-flight id (D6), a notification of one tenant's call (D7), and `Connection: close`; then the
// access checks and limits again on an endpoint serving the 2026-07-28 revision.
// The attacks that need the CLI process are in attacks-cli.test.ts; docs/security.md lists all.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../src/index.js';
import { serveStreamableHttp, type ProxyHttpEndpoint } from '../src/http.js';
import { REFUSALS, type RefusalReason } from '../src/http-limits.js';
import type { ProxyHttpOptions, ToolFailureProxy } from '../src/types.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { Client, McpServer } from '../../../test/helpers/mcp-v1.js';
import { scriptedUpstream, sdkUpstream, throughProxy } from './harness.js';
import { rawRequest, type Answer } from './raw-http.js';
import { envelopeHeaders, withEnvelope as envelope } from '../../tool-failure/src/wire/envelope.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'attacker', version: '1' },
  },
};

type Meta = Record<string, Record<string, unknown>>;

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return rawRequest(url, { headers, body: JSON.stringify(body) });
}

/** An upstream whose tool "slow" never answers; every other call is answered "ok". */
function slowUpstream(): ReturnType<typeof scriptedUpstream> {
  return scriptedUpstream((method, params) =>
    method === 'tools/call' && (params as { name?: string }).name === 'slow'
      ? 'hang'
      : { result: { content: [{ type: 'text', text: 'ok' }] } },
  );
}

function callMessage(id: number, name: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } };
}

/** A whole POST refused for `reason`: its status, and one JSON-RPC error per request, with its id. */
function expectRefusedPerMessage(
  answer: Answer,
  reason: RefusalReason,
  ids: number[],
  batch = true,
): void {
  const { status, code, message } = REFUSALS[reason];
  expect(answer.status, answer.body).toBe(status);
  const errors = ids.map((id) => ({ jsonrpc: '2.0', id, error: { code, message } }));
  expect(JSON.parse(answer.body)).toStrictEqual(batch ? errors : errors[0]);
}

/** Every JSON-RPC message of an answer sent as JSON or as SSE events. */
function messagesOf(answer: Answer): Array<{ id?: unknown; result?: Record<string, unknown> }> {
  const events = [...answer.body.matchAll(/^data: (.*)$/gm)].map((m) => m[1] ?? '');
  const parsed = (events.length > 0 ? events : [answer.body]).map((t) => JSON.parse(t) as unknown);
  return parsed.flat() as Array<{ id?: unknown; result?: Record<string, unknown> }>;
}

describe('attacks on the HTTP gateway', () => {
  let proxy: ToolFailureProxy | undefined;
  let endpoint: ProxyHttpEndpoint | undefined;
  let upstream: ReturnType<typeof scriptedUpstream>;

  /** A proxy over `slowUpstream()` (the proxy times "slow" out at 800 ms). */
  async function start(options: ProxyHttpOptions = {}): Promise<string> {
    upstream = slowUpstream();
    proxy = createToolFailureProxy({ upstream: upstream.factory, timeoutMs: 800 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, options);
    return endpoint.url;
  }

  async function session(url: string): Promise<string> {
    const answer = await post(url, INIT);
    expect(answer.status, answer.body).toBe(200);
    const sid = String(answer.headers['mcp-session-id']);
    await post(
      url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': sid },
    );
    return sid;
  }

  const upstreamCalls = (): number =>
    upstream.requests.filter((r) => r.method === 'tools/call').length;

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  it('D2: a batch of 20 slow calls in one POST, limits 2 per session and 5 in all, is refused whole, each call with its id', async () => {
    const url = await start({ limits: { maxInFlightPerSession: 2, maxInFlight: 5 } });
    const sid = await session(url);
    const ids = Array.from({ length: 20 }, (_, i) => 100 + i);
    const answer = await post(
      url,
      ids.map((id) => callMessage(id, 'slow')),
      { 'mcp-session-id': sid },
    );
    expectRefusedPerMessage(answer, 'batch_too_large', ids);
    expect(upstreamCalls()).toBe(0);
    // A batch within the limits is served whole.
    const fits = await post(url, [callMessage(1, 'fast'), callMessage(2, 'fast')], {
      'mcp-session-id': sid,
    });
    expect(fits.status).toBe(200);
    expect(
      messagesOf(fits)
        .map((m) => m.id)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('D2: batches count one slot per request against the free slots of the session and of the endpoint', async () => {
    const url = await start({ limits: { maxInFlightPerSession: 3, maxInFlight: 4 } });
    const a = await session(url);
    const b = await session(url);
    // Two slow calls of session a hold 2 of its 3 slots and 2 of the endpoint's 4.
    const held = post(url, [callMessage(10, 'slow'), callMessage(11, 'slow')], {
      'mcp-session-id': a,
    });
    await new Promise((r) => setTimeout(r, 150));
    // Session a: 2 more would make 4 > 3.
    const overSession = await post(url, [callMessage(12, 'fast'), callMessage(13, 'fast')], {
      'mcp-session-id': a,
    });
    expectRefusedPerMessage(overSession, 'in_flight_limit', [12, 13]);
    expect(overSession.headers['retry-after']).toBe('1');
    // Session b: 3 fit its own limit but not the endpoint's 2 free slots.
    const overEndpoint = await post(
      url,
      [callMessage(20, 'fast'), callMessage(21, 'fast'), callMessage(22, 'fast')],
      { 'mcp-session-id': b },
    );
    expectRefusedPerMessage(overEndpoint, 'in_flight_limit', [20, 21, 22]);
    expect(upstreamCalls()).toBe(2);
    // Once the slow calls end (the proxy's timeout), the slots are free again.
    expect((await held).status).toBe(200);
    const after = await post(
      url,
      [callMessage(30, 'fast'), callMessage(31, 'fast'), callMessage(32, 'fast')],
      { 'mcp-session-id': b },
    );
    expect(messagesOf(after)).toHaveLength(3);
  });

  it('D2: with the default limits, 3 POSTs of 100 slow calls each start no upstream call (stateless too)', async () => {
    const url = await start();
    const sid = await session(url);
    const batch = (base: number) =>
      Array.from({ length: 100 }, (_, i) => callMessage(base + i, 'slow'));
    const answers = await Promise.all(
      [0, 1000, 2000].map((base) => post(url, batch(base), { 'mcp-session-id': sid })),
    );
    for (const answer of answers) expect(answer.status, answer.body).toBe(400);
    expect(JSON.parse(answers[0]?.body ?? '[]')).toHaveLength(100);
    expect(upstreamCalls()).toBe(0);
    await endpoint?.close();
    await proxy?.close();
    const statelessUrl = await start({ stateless: true, limits: { maxInFlight: 50 } });
    expectRefusedPerMessage(
      await post(statelessUrl, batch(0)),
      'batch_too_large',
      batch(0).map((m) => m.id as number),
    );
    expect(upstreamCalls()).toBe(0);
  });

  it('D6: a second request with an id in flight in the session gets a JSON-RPC error at once; the first is answered', async () => {
    const url = await start();
    const sid = await session(url);
    const first = post(url, callMessage(7, 'slow'), { 'mcp-session-id': sid });
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    const second = await post(url, callMessage(7, 'fast'), { 'mcp-session-id': sid });
    expectRefusedPerMessage(second, 'duplicate_id', [7], false);
    expect(Date.now() - started).toBeLessThan(700);
    // The first is not left open: it gets the proxy's timeout failure for id 7 within its time.
    const answer = await Promise.race([
      first,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000).unref()),
    ]);
    expect(answer, 'the first request was left open').toBeDefined();
    const [message] = messagesOf(answer!);
    expect(message?.id).toBe(7);
    expect((message?.result?._meta as Meta)[KEY]?.code).toBe('timeout');
    // A repeated id inside one batch is refused the same way; the id is free again afterwards.
    expectRefusedPerMessage(
      await post(url, [callMessage(8, 'fast'), callMessage(8, 'fast')], { 'mcp-session-id': sid }),
      'duplicate_id',
      [8, 8],
    );
    expect(
      messagesOf(await post(url, callMessage(7, 'fast'), { 'mcp-session-id': sid }))[0]?.id,
    ).toBe(7);
  });

  it('D3: an upstream result too deep to send on is the upstream’s malformed response, not a caller left waiting', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5000; i++) deep = [deep];
    upstream = scriptedUpstream(() => ({ result: { content: [], structuredContent: { deep } } }));
    const lines: string[] = [];
    proxy = createToolFailureProxy({
      upstream: upstream.factory,
      timeoutMs: 800,
      log: (l) => lines.push(l),
    });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0);
    const sid = await session(endpoint.url);
    const answer = await post(endpoint.url, callMessage(5, 'deep'), { 'mcp-session-id': sid });
    const [message] = messagesOf(answer);
    expect(message?.id).toBe(5);
    expect((message?.result?._meta as Meta)[KEY]).toMatchObject({
      class: 'reliability',
      code: 'malformed_response',
    });
    expect(lines).toEqual([
      expect.stringMatching(
        /^tools\/call "deep": reliability\/malformed_response \(.*nests deeper than 1000 levels\)/,
      ),
    ]);
  });

  it('Connection: close is honoured on an SSE answer: the header says so and the proxy closes the connection', async () => {
    const url = await start();
    const sid = await session(url);
    const u = new URL(url);
    const body = JSON.stringify(callMessage(3, 'fast'));
    const socket = connect(Number(u.port), u.hostname);
    const received = new Promise<{ data: string; ended: boolean }>((resolve) => {
      let data = '';
      socket.on('data', (d: Buffer) => (data += d.toString()));
      socket.on('end', () => resolve({ data, ended: true }));
      setTimeout(() => resolve({ data, ended: false }), 3000).unref();
    });
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nMcp-Session-Id: ${sid}\r\n` +
        `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const { data, ended } = await received;
    socket.destroy();
    expect(data).toMatch(/^HTTP\/1\.1 200/);
    expect(data).toMatch(/content-type: text\/event-stream/i);
    expect(data).toMatch(/\r\nconnection: close\r\n/i);
    expect(data).not.toMatch(/keep-alive/i);
    expect(data).toContain('"id":3');
    expect(ended, 'the proxy kept the connection open').toBe(true);
  });
});

describe('attacks on the circuits (D3)', () => {
  it('1,100 invented tool names open no circuit and evict none: the open circuit of a listed tool stays open', async () => {
    const failing = {
      isError: true,
      content: [{ type: 'text', text: 'down' }],
      _meta: {
        [KEY]: {
          class: 'reliability',
          code: 'unavailable',
          retryable: true,
          correlationId: '0af7651916cd43dd8448eb211c80319c',
        },
      },
    };
    const up = scriptedUpstream((method) =>
      method === 'tools/list'
        ? { result: { tools: [{ name: 'down', inputSchema: { type: 'object' } }] } }
        : { result: failing },
    );
    const { client, close } = await throughProxy({ upstream: up.factory, circuitBreaker: true });
    try {
      await client.listTools();
      const code = async (name: string): Promise<unknown> =>
        ((await client.callTool({ name, arguments: {} }))._meta as Meta)[KEY]?.code;
      for (let i = 0; i < 5; i++) expect(await code('down')).toBe('unavailable');
      expect(await code('down')).toBe('circuit_open');
      // Each invented name fails upstream (a reliability failure) and would have a circuit.
      for (let i = 0; i < 1100; i++) expect(await code(`invented-${i}`)).toBe('unavailable');
      const before = up.requests.length;
      expect(await code('down')).toBe('circuit_open');
      expect(up.requests.length).toBe(before);
      // Nor do repeated invented names open circuits of their own: every call goes upstream.
      for (let i = 0; i < 6; i++) expect(await code('invented-0')).toBe('unavailable');
    } finally {
      await close();
    }
  });
});

describe('an HTTP upstream lost mid-life (D4)', () => {
  let httpUpstream: HttpServer | undefined;

  /** A sessionful Streamable HTTP upstream with tool "ok", on `port` (0: any). */
  async function listen(port: number): Promise<number> {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    httpUpstream = createServer((req, res) => {
      const sid = req.headers['mcp-session-id'];
      const known = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (known !== undefined) return void known.handleRequest(req, res);
      if (typeof sid === 'string') {
        res.writeHead(404).end();
        return;
      }
      const server = new McpServer({ name: 'http-upstream', version: '1' });
      server.registerTool('ok', { annotations: { idempotentHint: false } }, async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }));
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, transport),
      });
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => httpUpstream!.listen(port, '127.0.0.1', r));
    return (httpUpstream.address() as AddressInfo).port;
  }

  async function stop(): Promise<void> {
    const server = httpUpstream;
    httpUpstream = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }

  afterEach(stop);

  it('is upstream_unavailable: retryable once the connection is refused (never delivered), and the next call after it is back reconnects', async () => {
    const port = await listen(0);
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const lines: string[] = [];
    const { client, close } = await throughProxy({
      upstream: () => new StreamableHTTPClientTransport(url),
      log: (line) => lines.push(line),
    });
    const failureOf = async (): Promise<Record<string, unknown> | undefined> => {
      const r = await client.callTool({ name: 'ok', arguments: {} });
      expect(r.isError).toBe(true);
      return (r._meta as Meta)[KEY];
    };
    try {
      expect((await client.callTool({ name: 'ok', arguments: {} })).isError).toBeUndefined();
      await stop();
      // The first call may go out on the kept-alive connection the upstream just closed ("other
      // side closed": it may have been delivered, so retryable only for an idempotent tool).
      expect(await failureOf()).toMatchObject({
        class: 'reliability',
        code: 'upstream_unavailable',
      });
      // Now nothing listens: the connection is refused, the call never left the proxy.
      expect(await failureOf()).toMatchObject({
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: true,
      });
      expect(lines.join('\n')).toMatch(
        /^tools\/call "ok": reliability\/upstream_unavailable \(.*ECONNREFUSED.*\); correlationId [0-9a-f]{32}$/m,
      );
      // A restarted upstream knows none of the old sessions: the proxy opens a new one.
      await listen(port);
      const back = await client.callTool({ name: 'ok', arguments: {} });
      expect(back.isError).toBeUndefined();
      expect(back.content).toEqual([{ type: 'text', text: 'ok' }]);
    } finally {
      await close();
    }
  });
});

describe('notifications of one tenant’s call (D7)', () => {
  it('go to that call’s own stream, never to another session’s GET stream', async () => {
    const upstream = sdkUpstream((server) => {
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', data: `secret of ${String(request.params.arguments?.tenant)}` },
        });
        return { content: [{ type: 'text', text: 'done' }] };
      });
    });
    const proxy = createToolFailureProxy({ upstream: upstream.factory });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0);
    const tenant = async (name: string) => {
      const logs: unknown[] = [];
      const listChanged: number[] = [];
      const client = new Client({ name, version: '1' });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params.data);
      });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        listChanged.push(Date.now());
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      return { client, logs, listChanged };
    };
    const a = await tenant('a');
    const b = await tenant('b');
    try {
      const waitFor = async (ok: () => boolean): Promise<void> => {
        for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
      };
      // b's GET stream is open once it hears a server-wide notification.
      for (let i = 0; i < 50 && b.listChanged.length === 0; i++) {
        void upstream.servers[0]?.sendToolListChanged();
        await new Promise((r) => setTimeout(r, 40));
      }
      expect(b.listChanged.length).toBeGreaterThan(0);
      const heard = b.listChanged.length;
      const r = await a.client.callTool({ name: 'work', arguments: { tenant: 'a' } });
      expect(r.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(a.logs).toEqual(['secret of a']);
      // Sent after a's call on the same upstream connection: when b hears it, a's log is past.
      void upstream.servers[0]?.sendToolListChanged();
      await waitFor(() => b.listChanged.length > heard);
      expect(b.listChanged.length).toBeGreaterThan(heard);
      expect(b.logs).toEqual([]);
    } finally {
      await a.client.close();
      await b.client.close();
      await endpoint.close();
      await proxy.close();
    }
  });

  it('one whose owner cannot be told (two sessions with calls in flight) is relayed to neither, and that is said once', async () => {
    let release: (() => void) | undefined;
    const held = new Promise<void>((r) => (release = r));
    const upstream = sdkUpstream((server) => {
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        if (request.params.name === 'hold') await held;
        else
          await server.notification({
            method: 'notifications/message',
            params: { level: 'info', data: 'whose?' },
          });
        return { content: [{ type: 'text', text: request.params.name }] };
      });
    });
    const lines: string[] = [];
    const proxy = createToolFailureProxy({ upstream: upstream.factory, log: (l) => lines.push(l) });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0);
    const clients: Array<{ client: Client; logs: unknown[] }> = [];
    for (const name of ['a', 'b']) {
      const client = new Client({ name, version: '1' });
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params.data);
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      clients.push({ client, logs });
    }
    try {
      const [a, b] = clients as [(typeof clients)[0], (typeof clients)[0]];
      const holding = a.client.callTool({ name: 'hold', arguments: {} });
      await new Promise((r) => setTimeout(r, 100));
      await b.client.callTool({ name: 'log', arguments: {} });
      await b.client.callTool({ name: 'log', arguments: {} });
      release?.();
      await holding;
      expect(a.logs).toEqual([]);
      expect(b.logs).toEqual([]);
      expect(lines.filter((l) => l.includes('notifications/message'))).toHaveLength(1);
      expect(lines.join('\n')).toMatch(/"notifications\/message" was not relayed/);
    } finally {
      for (const { client } of clients) await client.close();
      await endpoint.close();
      await proxy.close();
    }
  });
});

/** A 2026-07-28 request as the SDK 2.x client sends it: the envelope in `_meta`, and its headers. */
function modernCall(id: number, name: string): { body: unknown; headers: Record<string, string> } {
  return {
    body: withEnvelope({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {} },
    }),
    headers: envelopeHeaders('tools/call', { name }),
  };
}

function withEnvelope(message: Record<string, unknown>): Record<string, unknown> {
  return {
    ...message,
    params: envelope(message.params as Record<string, unknown>, { name: 'attacker', version: '1' }),
  };
}

describe('attacks on the 2026-07-28 endpoint (revision: 2026-07-28)', () => {
  let proxy: ToolFailureProxy | undefined;
  let endpoint: ProxyHttpEndpoint | undefined;
  let upstream: ReturnType<typeof scriptedUpstream>;

  async function start(options: ProxyHttpOptions = {}): Promise<string> {
    upstream = slowUpstream();
    proxy = createToolFailureProxy({ upstream: upstream.factory, timeoutMs: 800 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, {
      revision: '2026-07-28',
      ...options,
    });
    return endpoint.url;
  }

  const upstreamCalls = (): number =>
    upstream.requests.filter((r) => r.method === 'tools/call').length;

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  it('a foreign Host or Origin, and a missing, wrong or other-scheme token, are refused before any upstream connection', async () => {
    const url = await start({ authToken: 'secret-token' });
    const port = new URL(url).port;
    const { body, headers } = modernCall(1, 'fast');
    const auth = { authorization: 'Bearer secret-token' };
    const cases: Array<[Record<string, string>, RefusalReason]> = [
      [{ host: 'evil.example', ...auth }, 'host_not_allowed'],
      [{ host: `127.0.0.1:${Number(port) + 1}`, ...auth }, 'host_not_allowed'],
      [{ origin: `http://evil.example:${port}`, ...auth }, 'origin_not_allowed'],
      [{ origin: 'null', ...auth }, 'origin_not_allowed'],
      [{}, 'unauthorized'],
      [{ authorization: 'Bearer wrong-token' }, 'unauthorized'],
      [{ authorization: 'Basic c2VjcmV0LXRva2Vu' }, 'unauthorized'],
    ];
    for (const [extra, reason] of cases) {
      const answer = await post(url, body, { ...headers, ...extra });
      expect(answer.status, `${JSON.stringify(extra)}: ${answer.body}`).toBe(
        REFUSALS[reason].status,
      );
      expect(JSON.parse(answer.body).error.message).toBe(REFUSALS[reason].message);
    }
    expect(upstream.connections).toBe(0);
    // The same request with the token and a good Host is served.
    const served = await post(url, body, { ...headers, ...auth });
    expect(served.status, served.body).toBe(200);
    expect(messagesOf(served)[0]?.result?.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('garbage is refused as on any endpoint: a body that is not JSON, and bytes that are not HTTP', async () => {
    const url = await start();
    const { headers } = modernCall(1, 'fast');
    const notJson = await rawRequest(url, { headers, body: '{"jsonrpc":"2.0", "id": 1, "meth' });
    expect(notJson.status).toBe(REFUSALS.parse_error.status);
    expect(JSON.parse(notJson.body).error.message).toBe(REFUSALS.parse_error.message);
    const { port } = new URL(url);
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('\x16\x03\x01garbage\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(upstream.connections).toBe(0);
  });

  it('over the limits: a body too large (413), more calls than may be in flight (429), a batch larger than the limit (400); no refused call reaches the upstream', async () => {
    const url = await start({ limits: { maxBodyBytes: 2048, maxInFlight: 2 } });
    const big = modernCall(1, 'fast');
    const tooLarge = await post(
      url,
      { ...(big.body as object), padding: 'x'.repeat(4096) },
      big.headers,
    );
    expect(tooLarge.status).toBe(REFUSALS.body_too_large.status);
    const batch = [modernCall(20, 'fast'), modernCall(21, 'fast'), modernCall(22, 'fast')];
    expectRefusedPerMessage(
      await post(
        url,
        batch.map((c) => c.body),
        batch[0]?.headers,
      ),
      'batch_too_large',
      [20, 21, 22],
    );
    const slow = [modernCall(10, 'slow'), modernCall(11, 'slow')];
    const pending = slow.map((c) => post(url, c.body, c.headers));
    // Both slots taken once the two calls have reached the upstream: the next POST is refused
    // before its body is read (so with id null).
    await expect.poll(upstreamCalls).toBe(2);
    const third = modernCall(12, 'fast');
    const refused = await post(url, third.body, third.headers);
    expect(refused.status).toBe(REFUSALS.in_flight_limit.status);
    expect(JSON.parse(refused.body)).toMatchObject({
      id: null,
      error: { message: REFUSALS.in_flight_limit.message },
    });
    // The slow calls end as the proxy's own timeout failures, answered on the 2026-07-28 wire.
    for (const answer of await Promise.all(pending)) {
      const result = messagesOf(answer)[0]?.result;
      expect(result?.isError).toBe(true);
      expect((result?._meta as Meta | undefined)?.[KEY]).toMatchObject({
        class: 'reliability',
        code: 'timeout',
      });
      expect(result?.resultType).toBe('complete');
    }
    expect(upstreamCalls()).toBe(2);
  });

  it('a header that contradicts the body, a request without the envelope, and an unknown version get the revision’s JSON-RPC errors and call nothing upstream', async () => {
    const url = await start();
    const { body, headers } = modernCall(1, 'fast');
    const mismatch = await post(url, body, { ...headers, 'mcp-name': 'other' });
    expect(messagesOf(mismatch)[0]).toMatchObject({ id: 1, error: { code: -32020 } });
    const bare = await post(
      url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fast', arguments: {} } },
      headers,
    );
    expect(JSON.parse(bare.body)).toMatchObject({ id: 2, error: { code: -32602 } });
    const future = modernCall(3, 'fast');
    const unsupported = await post(
      url,
      {
        ...(future.body as object),
        params: envelope(
          {
            name: 'fast',
            arguments: {},
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2027-01-01' },
          },
          { name: 'attacker', version: '1' },
        ),
      },
      { ...future.headers, 'mcp-protocol-version': '2027-01-01' },
    );
    expect(JSON.parse(unsupported.body)).toMatchObject({ id: 3, error: { code: -32022 } });
    expect(upstreamCalls()).toBe(0);
  });

  it('GET and DELETE get 405 (no session to stream or end); a client gone mid-call cancels its upstream request', async () => {
    const url = await start();
    for (const method of ['GET', 'DELETE']) {
      const answer = await rawRequest(url, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('POST');
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { message: REFUSALS.method_not_allowed.message },
      });
    }
    const { body, headers } = modernCall(7, 'slow');
    const controller = new AbortController();
    const gone = fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
      signal: controller.signal,
    }).catch(() => undefined);
    await expect.poll(upstreamCalls).toBe(1);
    controller.abort();
    await gone;
    await expect
      .poll(() => upstream.notifications.some((n) => n.method === 'notifications/cancelled'))
      .toBe(true);
  });
});
