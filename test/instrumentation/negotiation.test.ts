/**
 * Negotiation of the extension, against the real SDKs: an instrumented server declares
 * `io.modelcontextprotocol/toolFailure` in `capabilities.extensions` where the revision has the
 * field (2026-07-28: `server/discover`) and nowhere else; client spans record whether the peer
 * declared it and who the peer is (`serverInfo`); the SDK 2.x Client's connect-time
 * `server/discover` probe gets a client span in the caller's trace. SDK 2.4 over Streamable HTTP
 * on 127.0.0.1 (`createMcpHandler`, sessionful 2025) and stdio (`serveStdio`, the SDK's
 * disposable sibling probe); SDK 1.32 over the in-memory transport.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as V1InMemory } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v2Client from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as v2Server from '@modelcontextprotocol/server';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ATTR_MCP_TOOL_CALL_SERVER_NAME as SERVER_NAME,
  ATTR_MCP_TOOL_CALL_SERVER_VERSION as SERVER_VERSION,
  ATTR_MCP_TOOL_FAILURE_PEER_DECLARED as PEER_DECLARED,
} from '../../src/semconv.js';
import { markRelaying } from '../../src/shared/relayed.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { serveOnLoopback, sessionfulHandler, type WebHandler } from '../helpers/web-handler.js';

const t = setupTelemetry({}, { patch: false });
t.instrumentation._patchLoaded({ v1Protocol, v1Mcp, v2: [v2Server, v2Client] });

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const STDIO_SERVER = fileURLToPath(
  new URL('../fixtures/negotiation/stdio-server.mjs', import.meta.url),
);

/** The server's own capabilities objects, to show that none is changed by the declaration. */
const made: v2Server.McpServer[] = [];

function toolServer(): v2Server.McpServer {
  const server = new v2Server.McpServer({ name: 'negotiation-server', version: '2.4.1' });
  server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'fine' }] }));
  server.registerTool('fail', {}, async () => {
    throw Object.assign(new Error('denied'), { status: 403 });
  });
  made.push(server);
  return server;
}

const handlers = {
  /** The SDK's own entry: 2026-07-28 per request, 2025 clients served statelessly. */
  modern: (): WebHandler => {
    const handler = v2Server.createMcpHandler(() => toolServer());
    return (request) => handler.fetch(request);
  },
  /** A 2025-11-25 server with sessions, which knows no server/discover. */
  sessionful: (): WebHandler => sessionfulHandler(toolServer),
};

/** A client negotiating by `mode`; with `handler`, its requests answered in-process by that. */
async function connect(
  url: URL,
  mode: v2Client.VersionNegotiationMode,
  handler?: { fetch(request: Request): Promise<Response> },
): Promise<v2Client.Client> {
  const client = new v2Client.Client(
    { name: 'negotiation-client', version: '1' },
    { versionNegotiation: { mode } },
  );
  await client.connect(
    new v2Client.StreamableHTTPClientTransport(
      url,
      handler && { fetch: (input, init) => handler.fetch(new Request(input, init)) },
    ),
  );
  return client;
}

function span(name: string, kind: SpanKind): ReadableSpan {
  const found = t.finished().find((s) => s.name === name && s.kind === kind);
  if (found === undefined)
    throw new Error(
      `no ${SpanKind[kind]} span ${name} in ${t
        .finished()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return found;
}

function parentOf(s: ReadableSpan): string | undefined {
  return s.parentSpanContext?.spanId;
}

describe('2026-07-28: the server declares the extension in its server/discover result', () => {
  const { url } = serveOnLoopback(handlers.modern);
  beforeEach(() => {
    t.reset();
    made.length = 0;
  });

  for (const mode of [{ pin: MODERN }, 'auto'] as const) {
    it(`${JSON.stringify(mode)}: the client holds the declaration; its tools/call spans record it and the server`, async () => {
      const client = await connect(url(), mode);
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerCapabilities()?.extensions).toEqual({ [KEY]: {} });
      await client.callTool({ name: 'ok', arguments: {} });
      await client.callTool({ name: 'fail', arguments: {} });
      await client.close();
      for (const name of ['tools/call ok', 'tools/call fail'])
        expect(span(name, SpanKind.CLIENT).attributes).toMatchObject({
          [PEER_DECLARED]: true,
          [SERVER_NAME]: 'negotiation-server',
          [SERVER_VERSION]: '2.4.1',
        });
      // The declaration is on a copy: no server's own capabilities gained it.
      expect(made.length).toBeGreaterThan(0);
      for (const server of made) expect(server.server.getCapabilities().extensions).toBeUndefined();
    });
  }

  it('a declaration the server made itself is kept, settings and all', async () => {
    const own = v2Server.createMcpHandler(() => {
      const server = toolServer();
      server.server.registerCapabilities({ extensions: { [KEY]: { since: 'v1' } } });
      return server;
    });
    const client = await connect(url(), { pin: MODERN }, own);
    expect(client.getServerCapabilities()?.extensions).toEqual({ [KEY]: { since: 'v1' } });
    await client.close();
  });

  it('a server marked as relaying another (the proxy) declares nothing of its own', async () => {
    const relay = v2Server.createMcpHandler(() => {
      const server = toolServer();
      markRelaying(server.server);
      return server;
    });
    const client = await connect(url(), { pin: MODERN }, relay);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerCapabilities()?.extensions).toBeUndefined();
    await client.close();
  });

  it('declareExtension: false declares nothing, and the client span says the peer did not', async () => {
    t.instrumentation.setConfig({ declareExtension: false });
    try {
      const client = await connect(url(), { pin: MODERN });
      expect(client.getServerCapabilities()?.extensions).toBeUndefined();
      await client.callTool({ name: 'ok', arguments: {} });
      await client.close();
      expect(span('tools/call ok', SpanKind.CLIENT).attributes[PEER_DECLARED]).toBe(false);
    } finally {
      t.instrumentation.setConfig({});
    }
  });

  it("the connect-time probe has a client span in the caller's trace, and the server span is its child", async () => {
    const client = await trace.getTracer('test').startActiveSpan('caller', async (caller) => {
      try {
        return await connect(url(), { pin: MODERN });
      } finally {
        caller.end();
      }
    });
    await client.close();
    const caller = span('caller', SpanKind.INTERNAL);
    const probe = span('server/discover', SpanKind.CLIENT);
    const served = span('server/discover', SpanKind.SERVER);
    expect(probe.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(parentOf(probe)).toBe(caller.spanContext().spanId);
    expect(served.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(parentOf(served)).toBe(probe.spanContext().spanId);
    expect(probe.attributes).toMatchObject({
      'mcp.method.name': 'server/discover',
      'mcp.protocol.version': MODERN,
      'network.transport': 'tcp',
      [PEER_DECLARED]: true,
      [SERVER_NAME]: 'negotiation-server',
      [SERVER_VERSION]: '2.4.1',
    });
    expect(probe.attributes['jsonrpc.request.id']).toMatch(/^server-discover-probe-/);
    expect(probe.status.code).toBe(SpanStatusCode.UNSET);
    expect(probe.ended).toBe(true);
  });

  it('a 2025 client of the same handler: initialize declares nothing (the revision has no such field)', async () => {
    const client = await connect(url(), 'legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe(LEGACY);
    expect(client.getServerCapabilities()?.extensions).toBeUndefined();
    await client.callTool({ name: 'ok', arguments: {} });
    await client.close();
    expect(span('initialize', SpanKind.CLIENT).attributes).toMatchObject({
      [PEER_DECLARED]: false,
      [SERVER_NAME]: 'negotiation-server',
    });
    expect(span('tools/call ok', SpanKind.CLIENT).attributes[PEER_DECLARED]).toBe(false);
    expect(t.finished().some((s) => s.name === 'server/discover')).toBe(false);
  });
});

describe('auto against a 2025 server: the probe that finds no 2026-07-28 is recorded too', () => {
  const { url } = serveOnLoopback(handlers.sessionful);
  beforeEach(() => t.reset());

  it("the probe span is an error in the caller's trace; initialize follows; nothing declared", async () => {
    const client = await trace.getTracer('test').startActiveSpan('caller', async (caller) => {
      try {
        return await connect(url(), 'auto');
      } finally {
        caller.end();
      }
    });
    expect(client.getNegotiatedProtocolVersion()).toBe(LEGACY);
    await client.callTool({ name: 'ok', arguments: {} });
    await client.close();
    const caller = span('caller', SpanKind.INTERNAL);
    const probe = span('server/discover', SpanKind.CLIENT);
    expect(parentOf(probe)).toBe(caller.spanContext().spanId);
    expect(probe.status.code).toBe(SpanStatusCode.ERROR);
    expect(typeof probe.attributes['error.type']).toBe('string');
    expect(span('initialize', SpanKind.CLIENT).attributes[PEER_DECLARED]).toBe(false);
    expect(span('tools/call ok', SpanKind.CLIENT).attributes[PEER_DECLARED]).toBe(false);
  });
});

describe('stdio: the SDK probes on a disposable sibling process', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'omcp-negotiation-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => t.reset());

  it("the sibling's probe has the client span, its context reached the server, the transport is left as it was", async () => {
    const log = join(dir, 'received.jsonl');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_SERVER],
      env: { ...process.env, NEG_LOG: log } as Record<string, string>,
    });
    const client = new v2Client.Client(
      { name: 'c', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await trace.getTracer('test').startActiveSpan('caller', async (caller) => {
      try {
        await client.connect(transport);
      } finally {
        caller.end();
      }
    });
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    // The constructor the tap shadowed for the sibling is gone again.
    expect(Object.hasOwn(transport, 'constructor')).toBe(false);
    expect(transport.constructor).toBe(StdioClientTransport);
    await client.callTool({ name: 'ok', arguments: {} });
    await client.close();
    const caller = span('caller', SpanKind.INTERNAL);
    const probe = span('server/discover', SpanKind.CLIENT);
    expect(parentOf(probe)).toBe(caller.spanContext().spanId);
    expect(probe.attributes).toMatchObject({
      'network.transport': 'pipe',
      [SERVER_NAME]: 'stdio-negotiation',
      [SERVER_VERSION]: '3.1.0',
      // The child runs uninstrumented: it declares nothing.
      [PEER_DECLARED]: false,
    });
    const probes = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"server/discover"'))
      .map((l) => JSON.parse(l) as { params: { _meta: Record<string, unknown> } });
    expect(probes.length).toBeGreaterThan(0);
    expect(probes[0]?.params._meta.traceparent).toBe(
      `00-${probe.spanContext().traceId}-${probe.spanContext().spanId}-01`,
    );
  });
});

describe('stdio without negotiation (2025-11-25)', () => {
  beforeEach(() => t.reset());

  it('no probe span; the spans of the connect keep the transport attributes', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [STDIO_SERVER] });
    const client = new v2Client.Client({ name: 'c', version: '1' });
    await client.connect(transport);
    await client.callTool({ name: 'ok', arguments: {} });
    await client.close();
    expect(t.finished().some((s) => s.name === 'server/discover')).toBe(false);
    for (const name of ['initialize', 'tools/call ok'])
      expect(span(name, SpanKind.CLIENT).attributes).toMatchObject({
        'network.transport': 'pipe',
        [PEER_DECLARED]: false,
        [SERVER_NAME]: 'stdio-negotiation',
      });
  });
});

describe('SDK 1.x (2025-11-25 and older): nothing is declared', () => {
  beforeEach(() => t.reset());

  it('initialize carries no declaration; client spans say the peer did not declare, and who it is', async () => {
    const server = new V1McpServer({ name: 'v1-server', version: '1.32.2' });
    server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const [a, b] = V1InMemory.createLinkedPair();
    await server.connect(b);
    const client = new V1Client({ name: 'c', version: '1' });
    await client.connect(a);
    expect(client.getServerCapabilities()?.extensions).toBeUndefined();
    await client.callTool({ name: 'ok', arguments: {} });
    await client.close();
    for (const name of ['initialize', 'tools/call ok'])
      expect(span(name, SpanKind.CLIENT).attributes).toMatchObject({
        [PEER_DECLARED]: false,
        [SERVER_NAME]: 'v1-server',
        [SERVER_VERSION]: '1.32.2',
      });
  });

  it('a 1.x client records a declaration its server made itself', async () => {
    const server = new V1McpServer(
      { name: 'v1-declaring', version: '1' },
      { capabilities: { extensions: { [KEY]: {} } } },
    );
    server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const [a, b] = V1InMemory.createLinkedPair();
    await server.connect(b);
    const client = new V1Client({ name: 'c', version: '1' });
    await client.connect(a);
    await client.callTool({ name: 'ok', arguments: {} });
    await client.close();
    expect(span('tools/call ok', SpanKind.CLIENT).attributes[PEER_DECLARED]).toBe(true);
  });
});
