/**
 * Negotiation in manual mode (no module hooks): `instrumentServer()` on each server a
 * `createMcpHandler` factory builds declares the extension in its `server/discover` result, and
 * `instrumentClient()` before `connect()` gives the SDK 2.x Client's connect-time probe its client
 * span, in the caller's trace. Real SDK 2.4 client and server over Streamable HTTP on 127.0.0.1.
 */
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { SpanKind, trace } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { ATTR_MCP_TOOL_FAILURE_PEER_DECLARED as PEER_DECLARED } from '../../src/semconv.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { serveOnLoopback } from '../helpers/web-handler.js';

const t = setupTelemetry({}, { patch: false });

const { url } = serveOnLoopback(() => {
  const handler = v2Server.createMcpHandler(() => {
    const server = new v2Server.McpServer({ name: 'manual-server', version: '1' });
    server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    return t.instrumentation.instrumentServer(server);
  });
  return (request) => handler.fetch(request);
});

it("manual mode: the declaration, the probe span in the caller's trace, peer_declared on tools/call", async () => {
  t.reset();
  const client = t.instrumentation.instrumentClient(
    new v2Client.Client(
      { name: 'c', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    ),
  );
  await trace.getTracer('test').startActiveSpan('caller', async (caller) => {
    try {
      await client.connect(new v2Client.StreamableHTTPClientTransport(url()));
    } finally {
      caller.end();
    }
  });
  expect(client.getServerCapabilities()?.extensions).toEqual({ [KEY]: {} });
  await client.callTool({ name: 'ok', arguments: {} });
  await client.close();
  const spans = t.finished();
  const find = (name: string, kind: SpanKind) =>
    spans.find((s) => s.name === name && s.kind === kind);
  const caller = find('caller', SpanKind.INTERNAL);
  const probe = find('server/discover', SpanKind.CLIENT);
  const served = find('server/discover', SpanKind.SERVER);
  expect(probe?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
  expect(served?.parentSpanContext?.spanId).toBe(probe?.spanContext().spanId);
  expect(
    spans.filter((s) => s.name === 'server/discover' && s.kind === SpanKind.CLIENT),
  ).toHaveLength(1);
  expect(find('tools/call ok', SpanKind.CLIENT)?.attributes[PEER_DECLARED]).toBe(true);
});
