/**
 * One test for each defect found in the existing MCP instrumentations
 * (see the peer study): ours must not have any of them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client, InMemoryTransport, McpServer, Server, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();
const spans = (name: string, kind: SpanKind) =>
  t.finished().filter((s) => s.name === name && s.kind === kind);

describe('defects of peer packages, absent here', () => {
  it('detached traces (Traceloop): the client span joins the caller trace, not a long-lived session trace', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('t', {}, async () => ({ content: [] }));
    const { client, close } = await connectPair(server);
    t.reset();
    const step = trace.getTracer('agent').startSpan('agent step');
    await context.with(trace.setSpan(context.active(), step), () =>
      client.callTool({ name: 't', arguments: {} }),
    );
    step.end();
    await close();
    const [c] = spans('tools/call t', SpanKind.CLIENT);
    const [s] = spans('tools/call t', SpanKind.SERVER);
    expect(c?.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(s?.spanContext().traceId).toBe(step.spanContext().traceId);
  });

  it('dropped handler arguments (Shinzo): the tool callback still gets its arguments and extra', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    let seen: unknown[] = [];
    server.registerTool('args', { inputSchema: { q: z.string() } }, async (args, extra) => {
      seen = [args, typeof extra.sendNotification, extra.requestId];
      return { content: [] };
    });
    const { client, close } = await connectPair(server);
    await client.callTool({ name: 'args', arguments: { q: 'x' } });
    await close();
    expect(seen).toEqual([{ q: 'x' }, 'function', expect.any(Number)]);
  });

  it('swallowed errors (Shinzo): a thrown tool error reaches the client as an isError result, not "Invalid tools/call result"', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('throws', {}, async () => {
      throw new Error('kaput');
    });
    const { client, close } = await connectPair(server);
    const r = await client.callTool({ name: 'throws', arguments: {} });
    await close();
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: 'text', text: 'kaput' }]);
  });

  it('no span for errors before the handler (autotel): unknown tools and invalid arguments have server spans', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('typed', { inputSchema: { n: z.number() } }, async () => ({ content: [] }));
    const { client, close } = await connectPair(server);
    t.reset();
    await client.callTool({ name: 'missing', arguments: {} });
    await client.callTool({ name: 'typed', arguments: { n: 'NaN' } });
    await close();
    expect(spans('tools/call missing', SpanKind.SERVER)[0]?.attributes['error.type']).toBe(
      'tool_error',
    );
    expect(spans('tools/call typed', SpanKind.SERVER)[0]?.attributes['mcp.tool.failure.code']).toBe(
      'invalid_input',
    );
  });

  it('wrong span kind (Traceloop, Shinzo): senders are CLIENT and receivers SERVER, server-initiated requests included', async () => {
    const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(CallToolRequestSchema, async (_req, extra) => {
      const r = await extra.sendRequest(
        { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
        CreateMessageResultSchema,
      );
      return { content: [{ type: 'text', text: String(r.model) }] };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: 'm',
      role: 'assistant',
      content: { type: 'text', text: 'x' },
    }));
    await client.connect(a);
    t.reset();
    await client.callTool({ name: 'any', arguments: {} });
    await client.close();
    expect(spans('tools/call any', SpanKind.CLIENT)).toHaveLength(1);
    expect(spans('tools/call any', SpanKind.SERVER)).toHaveLength(1);
    const serverSide = spans('sampling/createMessage', SpanKind.CLIENT)[0];
    const clientSide = spans('sampling/createMessage', SpanKind.SERVER)[0];
    expect(serverSide?.parentSpanContext?.spanId).toBe(
      spans('tools/call any', SpanKind.SERVER)[0]?.spanContext().spanId,
    );
    expect(clientSide?.parentSpanContext?.spanId).toBe(serverSide?.spanContext().spanId);
  });

  it('span status OK on a JSON-RPC error (Sentry #20083): the client span is ERROR with the code', async () => {
    const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(CallToolRequestSchema, async () => {
      throw new McpError(-32000, 'backend offline');
    });
    const { client, close } = await connectPair(server);
    t.reset();
    await expect(client.callTool({ name: 'x', arguments: {} })).rejects.toThrow();
    await close();
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const s = spans('tools/call x', kind)[0]!;
      expect(s.status.code).toBe(SpanStatusCode.ERROR);
      expect(s.attributes['error.type']).toBe('-32000');
    }
  });

  it('no tool spans with stateless Streamable HTTP (Sentry #20290), and none lost during connect (#23977)', async () => {
    const http = createServer((req, res) => {
      const server = new McpServer({ name: 'stateless', version: '1' });
      server.registerTool('now', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`),
      ),
    );
    t.reset();
    await client.callTool({ name: 'now', arguments: {} });
    await client.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
    const serverSpans = spans('tools/call now', SpanKind.SERVER);
    const clientSpans = spans('tools/call now', SpanKind.CLIENT);
    expect(serverSpans).toHaveLength(1);
    expect(clientSpans).toHaveLength(1);
    expect(serverSpans[0]!.spanContext().traceId).toBe(clientSpans[0]!.spanContext().traceId);
  });

  it('payloads recorded by default (Traceloop, Sentry): arguments never appear unless enabled', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('p', { inputSchema: { secret: z.string() } }, async () => ({
      content: [{ type: 'text', text: 'result-secret' }],
    }));
    const { client, close } = await connectPair(server);
    t.reset();
    await client.callTool({ name: 'p', arguments: { secret: 'pa55word' } });
    await close();
    // Both spans of the call are there to be looked into.
    expect(spans('tools/call p', SpanKind.CLIENT)).toHaveLength(1);
    expect(spans('tools/call p', SpanKind.SERVER)).toHaveLength(1);
    const dump = JSON.stringify(t.finished().map((s) => [s.attributes, s.events]));
    expect(dump).not.toContain('pa55word');
    expect(dump).not.toContain('result-secret');
  });

  it('starting its own SDK (Shinzo): constructing the instrumentation registers no global provider', async () => {
    const { execFileSync } = await import('node:child_process');
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { trace, metrics } from '@opentelemetry/api';
      import { McpInstrumentation } from '@omcp/instrumentation-mcp';
      const i = new McpInstrumentation();
      const provider = trace.getTracerProvider();
      console.log(JSON.stringify({ tracer: provider.constructor.name, delegate: typeof provider.getDelegate === 'function' ? provider.getDelegate().constructor.name : null, meter: metrics.getMeterProvider().constructor.name }));
      i.disable();
    `,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({
      tracer: 'ProxyTracerProvider',
      delegate: 'NoopTracerProvider',
      meter: 'NoopMeterProvider',
    });
  });
});
