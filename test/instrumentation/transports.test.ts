import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SpanKind } from '@opentelemetry/api';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { Client, McpServer } from '../helpers/mcp-v1.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();
const root = fileURLToPath(new URL('../..', import.meta.url));
/** Polls until `condition` holds or `timeoutMs` passes; the assertion after it says what is missing. */
async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
const failureOf = (r: { _meta?: Record<string, unknown> }) =>
  r._meta?.[KEY] as { correlationId: string; class: string } | undefined;

describe('stdio: client here, server in a child process instrumented with zero code (--import register)', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('puts client and server spans in one trace across the process boundary; correlationId is that trace ID', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        '@omcp/instrumentation-mcp/register',
        'test/fixtures/apps/stdio-server.mjs',
      ],
      cwd: root,
      env: {
        ...process.env,
        OTEL_SERVICE_NAME: 'stdio-fixture',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_BLRP_SCHEDULE_DELAY: '100',
      } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-client', version: '1' });
    await client.connect(transport);
    t.reset();
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const failed = await client.callTool({ name: 'upstream', arguments: {} });
    await client.close();
    expect(ok.content).toEqual([{ type: 'text', text: 'hi' }]);

    const clientSpan = t
      .finished()
      .find((s) => s.name === 'tools/call upstream' && s.kind === SpanKind.CLIENT)!;
    expect(clientSpan.attributes['network.transport']).toBe('pipe');
    const traceId = clientSpan.spanContext().traceId;
    expect(failureOf(failed)).toMatchObject({ class: 'reliability', correlationId: traceId });

    await receiver.waitFor((spans) => spans.some((s) => s.name === 'tools/call upstream'));
    const serverSpan = receiver.spans.find((s) => s.name === 'tools/call upstream')!;
    expect(serverSpan.kind).toBe(2); // OTLP SPAN_KIND_SERVER
    expect(serverSpan.serviceName).toBe('stdio-fixture');
    expect(serverSpan.traceId).toBe(traceId);
    expect(serverSpan.parentSpanId).toBe(clientSpan.spanContext().spanId);
    expect(serverSpan.attributes).toMatchObject({
      'network.transport': 'pipe',
      'mcp.tool.failure.correlation_id': traceId,
      'mcp.tool.failure.code': 'retryable_transient_error',
    });
    // The child exports its log records on their own schedule: wait for this one, then assert.
    const failureLogged = () =>
      receiver.logs.some(
        (l) =>
          l.traceId === traceId &&
          String(l.attributes['exception.message']).includes('ECONNREFUSED'),
      );
    await waitFor(failureLogged);
    expect(failureLogged()).toBe(true);
  });
});

describe('Streamable HTTP on 127.0.0.1', () => {
  let http: HttpServer;
  let url: URL;
  beforeAll(async () => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    http = createServer((req, res) => {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (transport === undefined) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, transport!),
        });
        const server = new McpServer({ name: 'http-fixture', version: '1' });
        server.registerTool('deny', {}, async () => {
          throw Object.assign(new Error('forbidden'), { status: 403 });
        });
        void server.connect(transport);
      }
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });

  it('traces both sides over HTTP with session id and tcp transport; correlationId is the trace ID', async () => {
    const client = new Client({ name: 'http-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url));
    t.reset();
    const r = await client.callTool({ name: 'deny', arguments: {} });
    await client.close();
    const c = t.finished().find((s) => s.name === 'tools/call deny' && s.kind === SpanKind.CLIENT)!;
    const s = t.finished().find((x) => x.name === 'tools/call deny' && x.kind === SpanKind.SERVER)!;
    expect(s.spanContext().traceId).toBe(c.spanContext().traceId);
    expect(s.parentSpanContext?.spanId).toBe(c.spanContext().spanId);
    expect(failureOf(r)).toMatchObject({
      class: 'governance',
      code: 'permission_denied',
      correlationId: c.spanContext().traceId,
    });
    expect(s.attributes).toMatchObject({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.session.id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(c.attributes).toMatchObject({
      'network.transport': 'tcp',
      'server.address': '127.0.0.1',
      'server.port': Number(url.port),
    });
    expect(s.attributes).not.toHaveProperty('server.address');
  });
});
