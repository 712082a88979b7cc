/**
 * Every Streamable HTTP mode of SDK 2.4, real client and server on 127.0.0.1: sessionful
 * 2025-11-25, stateless (a new server per request, and the SDK's own `createMcpHandler` with its
 * stateless fallback for 2025 clients), 2026-07-28 pinned, and `auto`. One trace per call, the
 * `correlationId` its trace ID, `mcp.protocol.version` on both spans, no session id without a
 * session.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1ClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport as V1ServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { negotiatedVersion, requestVersion, transportVersion } from '../../src/shared/record.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { registerConfirmTool } from '../helpers/mcp-v2.js';
import { serveOnLoopback, sessionfulHandler, type WebHandler } from '../helpers/web-handler.js';

const t = setupTelemetry({}, { patch: false });
t.instrumentation._patchLoaded({ v1Protocol, v1Mcp, v2: [v2Server, v2Client] });

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

function toolServer(): v2Server.McpServer {
  const server = new v2Server.McpServer({ name: 'modes', version: '1' });
  server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'fine' }] }));
  server.registerTool('reset', {}, async () => {
    throw Object.assign(new Error('socket reset'), { code: 'ECONNRESET' });
  });
  // One logical call in two rounds on 2026-07-28: input_required first, the result after.
  registerConfirmTool(server);
  server.registerTool('needs_sampling', {}, async () => {
    throw new v2Server.MissingRequiredClientCapabilityError({
      requiredCapabilities: { sampling: {} },
    });
  });
  // A low-level handler's ProtocolError goes out as a JSON-RPC error with its code.
  server.server.registerCapabilities({ prompts: {} });
  server.server.setRequestHandler('prompts/get', async () => {
    throw new v2Server.MissingRequiredClientCapabilityError({
      requiredCapabilities: { sampling: {} },
    });
  });
  return server;
}

const servers = {
  /** One server per session, sessions by `Mcp-Session-Id`. */
  sessionful: (): WebHandler => sessionfulHandler(toolServer),
  /** The established stateless idiom: a new server and transport per request, no session. */
  perRequest: (): WebHandler => async (request) => {
    const transport = new v2Server.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await toolServer().connect(transport);
    return transport.handleRequest(request);
  },
  /** The SDK's own entry: 2026-07-28 per request, 2025 clients served statelessly. */
  handler: (): WebHandler => {
    const handler = v2Server.createMcpHandler(() => toolServer());
    return (request) => handler.fetch(request);
  },
};

interface Mode {
  name: string;
  server: keyof typeof servers;
  negotiation: v2Client.VersionNegotiationMode;
  version: string;
  session: boolean;
}

const MODES: Mode[] = [
  {
    name: 'sessionful 2025-11-25',
    server: 'sessionful',
    negotiation: 'legacy',
    version: LEGACY,
    session: true,
  },
  {
    name: 'stateless, a server per request',
    server: 'perRequest',
    negotiation: 'legacy',
    version: LEGACY,
    session: false,
  },
  {
    name: "stateless, createMcpHandler's 2025 fallback",
    server: 'handler',
    negotiation: 'legacy',
    version: LEGACY,
    session: false,
  },
  {
    name: '2026-07-28 pinned',
    server: 'handler',
    negotiation: { pin: MODERN },
    version: MODERN,
    session: false,
  },
  {
    name: 'auto, negotiated to 2026-07-28',
    server: 'handler',
    negotiation: 'auto',
    version: MODERN,
    session: false,
  },
  {
    name: 'auto, fallen back to a sessionful 2025 server',
    server: 'sessionful',
    negotiation: 'auto',
    version: LEGACY,
    session: true,
  },
  {
    name: 'auto, fallen back to a stateless 2025 server',
    server: 'perRequest',
    negotiation: 'auto',
    version: LEGACY,
    session: false,
  },
];

const ATTR_VERSION = 'mcp.protocol.version';
const ATTR_SESSION = 'mcp.session.id';

function spansOf(name: string): { client: ReadableSpan; server: ReadableSpan } {
  const spans = t.finished().filter((s) => s.name === name);
  const client = spans.find((s) => s.kind === SpanKind.CLIENT);
  const server = spans.find((s) => s.kind === SpanKind.SERVER);
  if (client === undefined || server === undefined)
    throw new Error(`no client and server span ${name}`);
  return { client, server };
}

async function connect(url: URL, mode: v2Client.VersionNegotiationMode): Promise<v2Client.Client> {
  const client = new v2Client.Client(
    { name: 'modes-client', version: '1' },
    { versionNegotiation: { mode }, capabilities: { elicitation: {} } },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { ok: true },
  }));
  await client.connect(new v2Client.StreamableHTTPClientTransport(url));
  return client;
}

for (const mode of MODES) {
  describe(`Streamable HTTP, ${mode.name}`, () => {
    const http = serveOnLoopback(servers[mode.server]);
    beforeEach(() => t.reset());

    it('a failing tool: one trace, correlationId = trace ID, version on both spans', async () => {
      const client = await connect(http.url(), mode.negotiation);
      const result = (await client.callTool({ name: 'reset', arguments: {} })) as {
        isError?: boolean;
        _meta?: Record<string, { class?: string; correlationId?: string }>;
      };
      await client.close();
      expect(result.isError).toBe(true);
      const { client: c, server: s } = spansOf('tools/call reset');
      const traceId = c.spanContext().traceId;
      expect(s.spanContext().traceId).toBe(traceId);
      expect(s.parentSpanContext?.spanId).toBe(c.spanContext().spanId);
      expect(result._meta?.[KEY]).toMatchObject({ class: 'reliability', correlationId: traceId });
      for (const span of [c, s]) {
        expect(span.attributes[ATTR_VERSION]).toBe(mode.version);
        expect(span.attributes['error.type']).toBe('tool_error');
        expect(span.attributes['mcp.tool.failure.class']).toBe('reliability');
        expect(span.status.code).toBe(SpanStatusCode.ERROR);
      }
      const points = await t.metric('mcp.server.operation.duration');
      expect(
        points.find(
          (p) =>
            p.attributes['gen_ai.tool.name'] === 'reset' &&
            p.attributes[ATTR_VERSION] === mode.version,
        )?.attributes,
      ).toMatchObject({ 'error.type': 'tool_error', 'mcp.tool.failure.class': 'reliability' });
    });

    it(`a succeeding tool: one trace, version on both spans, ${mode.session ? 'the' : 'no'} session id`, async () => {
      const client = await connect(http.url(), mode.negotiation);
      const result = (await client.callTool({ name: 'ok', arguments: {} })) as {
        isError?: boolean;
      };
      await client.close();
      expect(result.isError).toBeUndefined();
      const { client: c, server: s } = spansOf('tools/call ok');
      expect(s.spanContext().traceId).toBe(c.spanContext().traceId);
      for (const span of [c, s]) {
        expect(span.attributes[ATTR_VERSION]).toBe(mode.version);
        expect(span.attributes['error.type']).toBeUndefined();
        expect(span.status.code).toBe(SpanStatusCode.UNSET);
      }
      if (mode.session) {
        expect(typeof s.attributes[ATTR_SESSION]).toBe('string');
        expect(c.attributes[ATTR_SESSION]).toBe(s.attributes[ATTR_SESSION]);
      } else {
        expect(t.finished().filter((x) => x.attributes[ATTR_SESSION] !== undefined)).toEqual([]);
      }
    });
  });
}

describe('2026-07-28 specifics', () => {
  const http = serveOnLoopback(servers.handler);
  beforeEach(() => t.reset());

  it('server/discover gets a server span with the version and no session id', async () => {
    const client = await connect(http.url(), { pin: MODERN });
    await client.close();
    // The connect-time probe also has a CLIENT span now (test/instrumentation/negotiation.test.ts).
    const discover = t
      .finished()
      .find((s) => s.name === 'server/discover' && s.kind === SpanKind.SERVER);
    expect(discover?.kind).toBe(SpanKind.SERVER);
    expect(discover?.attributes).toMatchObject({
      'mcp.method.name': 'server/discover',
      [ATTR_VERSION]: MODERN,
    });
    expect(discover?.attributes[ATTR_SESSION]).toBeUndefined();
    expect(discover?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('an input_required round is not a failure; its rounds share the one client span', async () => {
    const client = await connect(http.url(), { pin: MODERN });
    const result = (await client.callTool({ name: 'confirm', arguments: {} })) as {
      content?: Array<{ text?: string }>;
    };
    await client.close();
    expect(result.content?.[0]?.text).toBe('confirmed');
    const calls = t.finished().filter((s) => s.name === 'tools/call confirm');
    const clients = calls.filter((s) => s.kind === SpanKind.CLIENT);
    const rounds = calls.filter((s) => s.kind === SpanKind.SERVER);
    expect(clients).toHaveLength(1);
    expect(rounds).toHaveLength(2);
    const [c] = clients;
    for (const round of rounds) {
      expect(round.spanContext().traceId).toBe(c!.spanContext().traceId);
      expect(round.parentSpanContext?.spanId).toBe(c!.spanContext().spanId);
      expect(round.attributes['error.type']).toBeUndefined();
      expect(round.status.code).toBe(SpanStatusCode.UNSET);
      expect(round.attributes[ATTR_VERSION]).toBe(MODERN);
    }
    expect(new Set(rounds.map((r) => r.attributes['jsonrpc.request.id'])).size).toBe(2);
    expect(c!.attributes['error.type']).toBeUndefined();
  });

  it('-32021 thrown by a tool: a failure object capability / capability_unsupported', async () => {
    const client = await connect(http.url(), { pin: MODERN });
    const result = (await client.callTool({ name: 'needs_sampling', arguments: {} })) as {
      _meta?: Record<string, { class?: string; code?: string }>;
    };
    await client.close();
    expect(result._meta?.[KEY]).toMatchObject({
      class: 'capability',
      code: 'capability_unsupported',
    });
    const { client: c, server: s } = spansOf('tools/call needs_sampling');
    for (const span of [c, s])
      expect(span.attributes['mcp.tool.failure.code']).toBe('capability_unsupported');
  });

  it("-32021 as a JSON-RPC error: the caller's error on the server span, an error on the client's", async () => {
    const client = await connect(http.url(), { pin: MODERN });
    const error = await client.getPrompt({ name: 'p' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(error).toBeInstanceOf(Error);
    const { client: c, server: s } = spansOf('prompts/get p');
    expect(s.attributes['rpc.response.status_code']).toBe('-32021');
    expect(s.attributes['error.type']).toBeUndefined();
    expect(s.status.code).toBe(SpanStatusCode.UNSET);
    expect(c.attributes['rpc.response.status_code']).toBe('-32021');
    expect(c.attributes['error.type']).toBe('-32021');
    expect(c.status.code).toBe(SpanStatusCode.ERROR);
    expect(s.attributes[ATTR_VERSION]).toBe(MODERN);
  });
});

describe('where the version comes from', () => {
  it("the request's own _meta (2026-07-28), read as an own property only", () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN };
    expect(requestVersion({ _meta: meta })).toBe(MODERN);
    expect(requestVersion({ _meta: Object.create(meta) as object })).toBeUndefined();
    expect(
      requestVersion({ _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } }),
    ).toBeUndefined();
    expect(requestVersion(undefined)).toBeUndefined();
  });

  it("what the transport handed over: 2.x's classification, 2.x's Request, 1.x's requestInfo", () => {
    expect(transportVersion({ classification: { era: 'modern', revision: MODERN } })).toBe(MODERN);
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'MCP-Protocol-Version': LEGACY },
    });
    expect(transportVersion({ request })).toBe(LEGACY);
    expect(transportVersion({ request: new Request('http://127.0.0.1/mcp') })).toBeUndefined();
    expect(transportVersion({ requestInfo: { headers: { 'mcp-protocol-version': LEGACY } } })).toBe(
      LEGACY,
    );
    expect(transportVersion(undefined)).toBeUndefined();
  });

  it("the 2.x SDK's own record of the negotiation, when initialize taught nothing", () => {
    expect(negotiatedVersion({ _negotiatedProtocolVersion: MODERN })).toBe(MODERN);
    expect(negotiatedVersion({})).toBeUndefined();
  });
});

describe('SDK 1.x, stateless Streamable HTTP (a server per request)', () => {
  let http: HttpServer;
  let url: URL;
  beforeAll(async () => {
    http = createServer((req, res) => {
      const transport = new V1ServerTransport({ sessionIdGenerator: undefined });
      const server = new V1McpServer({ name: 'v1-stateless', version: '1' });
      server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'fine' }] }));
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  it("the server span's version comes from the MCP-Protocol-Version header 1.x hands over", async () => {
    t.reset();
    const client = new V1Client({ name: 'v1-client', version: '1' });
    await client.connect(new V1ClientTransport(url));
    await client.callTool({ name: 'ok', arguments: {} });
    await client.close();
    const { client: c, server: s } = spansOf('tools/call ok');
    expect(s.spanContext().traceId).toBe(c.spanContext().traceId);
    expect(s.attributes[ATTR_VERSION]).toBe(c.attributes[ATTR_VERSION]);
    expect(s.attributes[ATTR_VERSION]).toBe(LEGACY);
    expect(s.attributes[ATTR_SESSION]).toBeUndefined();
  });
});
