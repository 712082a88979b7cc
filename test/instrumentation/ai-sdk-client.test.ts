/**
 * The Vercel AI SDK's own MCP client (`@ai-sdk/mcp` 2.0.99, pinned in test/fixtures/ai-sdk/),
 * against real MCP SDK servers over every transport it offers: Streamable HTTP (2026-07-28 by
 * discovery, and 2025-11-25 by `initialize`), SSE and stdio. Its client spans are the MCP SDK
 * client's, made by the same code; the trace is one from the caller's span to the server's.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
  METRIC_MCP_CLIENT_TOOL_FAILURES,
} from '../../src/semconv.js';
import { instrumentClientWith } from '../../src/patches/instance.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { registerConfirmTool } from '../helpers/mcp-v2.js';
import { serveOnLoopback, sessionfulHandler } from '../helpers/web-handler.js';
import { FIXTURE, ROOT, loadAiSdk, type AiSdkClient } from './ai-sdk-load.js';

const { mcp, stdio } = await loadAiSdk();
const t = setupTelemetry({}, { patch: false });
t.instrumentation._patchLoaded({
  v1Protocol,
  v1Mcp,
  v2: [v2Server, v2Client],
  aiSdk: { exports: mcp, version: '2.0.99' },
});
const tracer = trace.getTracer('ai-sdk-client.test');

/** The client's elicitation registration, which these tests' client type leaves out. */
interface AiSdkElicitation {
  onElicitationRequest(schema: unknown, handler: () => unknown): void;
}

function v2ToolServer(): v2Server.McpServer {
  const server = new v2Server.McpServer({ name: 'ai-sdk', version: '1' });
  server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'fine' }] }));
  server.registerTool('fail', {}, async () => {
    throw Object.assign(new Error('socket reset by upstream'), { code: 'ECONNRESET' });
  });
  // One logical call in two rounds on 2026-07-28: input_required first, the result after.
  registerConfirmTool(server);
  return server;
}

function v1ToolServer(): V1McpServer {
  const server = new V1McpServer({ name: 'ai-sdk-sse', version: '1' });
  server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'fine' }] }));
  server.registerTool('fail', {}, async () => {
    throw Object.assign(new Error('socket reset by upstream'), { code: 'ECONNRESET' });
  });
  return server;
}

/** Streamable HTTP: the SDK's `createMcpHandler` (2026-07-28, 2025 clients served statelessly) on `/modern`, a sessionful 2025-11-25 server on `/legacy`. */
const streamableHttp = serveOnLoopback(() => {
  const modern = v2Server.createMcpHandler(() => v2ToolServer());
  const legacy = sessionfulHandler(v2ToolServer);
  return (request) =>
    new URL(request.url).pathname.startsWith('/modern') ? modern.fetch(request) : legacy(request);
});
const httpUrl = (): string => streamableHttp.url().origin;

/** SSE (the 2024-11-05 transport): `GET /sse` opens the stream, `POST /messages` carries requests. */
function sse(): HttpServer {
  const transports = new Map<string, SSEServerTransport>();
  return createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET' && req.url === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        transports.set(transport.sessionId, transport);
        await v1ToolServer().connect(transport);
        return;
      }
      const id = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('sessionId');
      const transport = id === null ? undefined : transports.get(id);
      if (transport === undefined) res.writeHead(404).end();
      else await transport.handlePostMessage(req, res);
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
}

async function listen(server: HttpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let sseServer: HttpServer;
let sseUrl: string;

beforeAll(async () => {
  sseServer = sse();
  sseUrl = await listen(sseServer);
});

afterAll(async () => {
  sseServer.closeAllConnections();
  await new Promise((resolve) => sseServer.close(resolve));
});

beforeEach(() => t.reset());

/** Calls `ok` and `fail` through the client's own `callTool`, each inside a caller span. */
async function callBoth(client: AiSdkClient): Promise<{ ok: ReadableSpan; fail: ReadableSpan }> {
  const callers: Record<string, string> = {};
  for (const name of ['ok', 'fail']) {
    await tracer.startActiveSpan(`caller ${name}`, async (span) => {
      callers[name] = span.spanContext().spanId;
      try {
        const result = await client.callTool({ name, arguments: {} });
        expect(result.isError === true, name).toBe(name === 'fail');
      } finally {
        span.end();
      }
    });
  }
  const span = (name: string): ReadableSpan => {
    const found = t.finished().find((s) => s.kind === SpanKind.CLIENT && s.name === name);
    if (found === undefined) throw new Error(`no client span ${name}`);
    return found;
  };
  const ok = span('tools/call ok');
  const fail = span('tools/call fail');
  expect(ok.parentSpanContext?.spanId).toBe(callers.ok);
  expect(fail.parentSpanContext?.spanId).toBe(callers.fail);
  return { ok, fail };
}

/** The server span of `client`'s request: one trace, parented on the client span. */
function serverOf(client: ReadableSpan): ReadableSpan {
  const server = t
    .finished()
    .find(
      (s) =>
        s.kind === SpanKind.SERVER &&
        s.name === client.name &&
        s.parentSpanContext?.spanId === client.spanContext().spanId,
    );
  if (server === undefined) throw new Error(`no server span under ${client.name}`);
  expect(server.spanContext().traceId).toBe(client.spanContext().traceId);
  return server;
}

/** The failure the server added, read and recorded on the client span. */
function expectFailureRead(client: ReadableSpan, server: ReadableSpan | undefined): void {
  expect(client.attributes[ATTR_MCP_TOOL_FAILURE_CLASS]).toBe('reliability');
  expect(client.attributes[ATTR_MCP_TOOL_FAILURE_CODE]).toBe('retryable_transient_error');
  expect(client.attributes[ATTR_MCP_TOOL_FAILURE_CORRELATION_ID]).toBe(
    client.spanContext().traceId,
  );
  expect(client.attributes['error.type']).toBe('tool_error');
  if (server !== undefined)
    expect(server.attributes[ATTR_MCP_TOOL_FAILURE_CODE]).toBe('retryable_transient_error');
}

describe('@ai-sdk/mcp 2.0.99 client, instrumented through its module (auto and register modes)', () => {
  it('Streamable HTTP, 2026-07-28 by discovery: client spans, one trace, the failure read', async () => {
    const client = await mcp.createMCPClient({
      transport: { type: 'http', url: `${httpUrl()}/modern` },
    });
    try {
      const { ok, fail } = await callBoth(client);
      expect(ok.attributes['mcp.protocol.version']).toBe('2026-07-28');
      expect(ok.attributes['server.address']).toBe('127.0.0.1');
      expect(ok.attributes['server.port']).toBe(Number(new URL(httpUrl()).port));
      expect(ok.attributes['network.transport']).toBe('tcp');
      expect(ok.attributes['gen_ai.tool.name']).toBe('ok');
      serverOf(ok);
      expectFailureRead(fail, serverOf(fail));
      const discover = t
        .finished()
        .find((s) => s.kind === SpanKind.CLIENT && s.name === 'server/discover');
      expect(discover?.attributes['mcp.protocol.version']).toBe('2026-07-28');
      serverOf(discover!);
      const failures = await t.metric(METRIC_MCP_CLIENT_TOOL_FAILURES);
      expect(
        failures.some((p) => p.attributes[ATTR_MCP_TOOL_FAILURE_CLASS] === 'reliability'),
      ).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('Streamable HTTP, 2025-11-25 by initialize (sessionful): client spans with the session id, one trace', async () => {
    const client = await mcp.createMCPClient({
      transport: { type: 'http', url: `${httpUrl()}/legacy` },
      protocolVersionDiscovery: false,
    });
    try {
      const { ok, fail } = await callBoth(client);
      expect(ok.attributes['mcp.protocol.version']).toBe('2025-11-25');
      expect(typeof ok.attributes['mcp.session.id']).toBe('string');
      expect(ok.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
      serverOf(ok);
      expectFailureRead(fail, serverOf(fail));
      const init = t.finished().find((s) => s.kind === SpanKind.CLIENT && s.name === 'initialize');
      expect(init?.attributes['mcp.protocol.version']).toBe('2025-11-25');
      serverOf(init!);
    } finally {
      await client.close();
    }
  });

  it('SSE: client spans, one trace, the failure read', async () => {
    const client = await mcp.createMCPClient({ transport: { type: 'sse', url: `${sseUrl}/sse` } });
    try {
      const { ok, fail } = await callBoth(client);
      expect(ok.attributes['network.protocol.name']).toBe('http');
      serverOf(ok);
      expectFailureRead(fail, serverOf(fail));
    } finally {
      await client.close();
    }
  });

  it('stdio: the client span, its context in params._meta of the server process, the failure read', async () => {
    const client = await mcp.createMCPClient({
      transport: new stdio.StdioMCPTransport({
        command: process.execPath,
        args: ['--import', join(ROOT, 'register', 'index.mjs'), join(FIXTURE, 'stdio-server.mjs')],
        env: {
          ...process.env,
          OTEL_TRACES_EXPORTER: 'none',
          OTEL_METRICS_EXPORTER: 'none',
          OTEL_LOGS_EXPORTER: 'none',
        } as Record<string, string>,
        stderr: 'ignore',
      }),
    });
    try {
      const result = await tracer.startActiveSpan('caller', async (span) => {
        try {
          return await client.callTool({ name: 'trace', arguments: {} });
        } finally {
          span.end();
        }
      });
      const span = t.finished().find((s) => s.name === 'tools/call trace');
      expect(span?.kind).toBe(SpanKind.CLIENT);
      expect(span?.attributes['network.transport']).toBe('pipe');
      const text = (result.content as Array<{ text?: string }>)[0]?.text;
      expect(text).toBe(`00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`);
      await client.callTool({ name: 'fail', arguments: {} });
      const failed = t.finished().find((s) => s.name === 'tools/call fail');
      expectFailureRead(failed!, undefined);
    } finally {
      await client.close();
    }
  });

  it("names and attributes are the MCP SDK client's, against the same server", async () => {
    const shapeOf = (spans: ReadableSpan[]): string[] =>
      spans
        .filter((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('tools/call'))
        .map((s) => `${s.name}: ${Object.keys(s.attributes).sort().join(' ')}`)
        .sort();
    const ai = await mcp.createMCPClient({
      transport: { type: 'http', url: `${httpUrl()}/modern` },
    });
    await callBoth(ai);
    await ai.close();
    const fromAiSdk = shapeOf(t.finished());
    t.reset();
    const sdk = new v2Client.Client(
      { name: 'sdk', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await sdk.connect(new v2Client.StreamableHTTPClientTransport(new URL(`${httpUrl()}/modern`)));
    for (const name of ['ok', 'fail']) await sdk.callTool({ name, arguments: {} });
    await sdk.close();
    expect(fromAiSdk).toEqual(shapeOf(t.finished()));
  });
});

describe('@ai-sdk/mcp 2.0.99 client, input-required rounds (2026-07-28)', () => {
  it("one client span per round, each with its server span, in the caller's trace", async () => {
    const client = await mcp.createMCPClient({
      transport: { type: 'http', url: `${httpUrl()}/modern` },
      capabilities: { elicitation: {} },
    });
    try {
      (client as unknown as AiSdkElicitation).onElicitationRequest(
        mcp.ElicitationRequestSchema,
        () => ({ action: 'accept', content: { ok: true } }),
      );
      const result = await tracer.startActiveSpan('caller', async (span) => {
        try {
          return await client.callTool({ name: 'confirm', arguments: {} });
        } finally {
          span.end();
        }
      });
      expect((result.content as Array<{ text?: string }>)[0]?.text).toBe('confirmed');
      const rounds = t
        .finished()
        .filter((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call confirm');
      expect(rounds).toHaveLength(2);
      const caller = t.finished().find((s) => s.name === 'caller');
      for (const round of rounds) {
        expect(round.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
        serverOf(round);
      }
      expect(new Set(rounds.map((r) => r.attributes['jsonrpc.request.id'])).size).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe('@ai-sdk/mcp 2.0.99 client, manual mode', () => {
  it('instrumentClient(client) on a client of an unpatched module: client spans and one trace', async () => {
    const { mcp: fresh } = await loadAiSdk('manual');
    const client = await fresh.createMCPClient({
      transport: { type: 'http', url: `${httpUrl()}/modern` },
    });
    try {
      expect(t.finished().filter((s) => s.kind === SpanKind.CLIENT)).toEqual([]);
      expect(t.instrumentation.instrumentClient(client)).toBe(client);
      // A second call changes nothing: one span per request.
      instrumentClientWith(t.instrumentation._telemetry(), client);
      const { ok, fail } = await callBoth(client);
      expect(
        t.finished().filter((s) => s.name === 'tools/call ok' && s.kind === SpanKind.CLIENT),
      ).toHaveLength(1);
      expect(ok.attributes['mcp.protocol.version']).toBe('2026-07-28');
      serverOf(ok);
      expectFailureRead(fail, serverOf(fail));
    } finally {
      await client.close();
    }
  });
});
