/**
 * Negotiation in manual mode (no module hooks): `instrumentServer()` on each server a
 * `createMcpHandler` factory builds declares the extension in its `server/discover` result, and
 * `instrumentClient()` before `connect()` gives the SDK 2.x Client's connect-time probe its client
 * span, in the caller's trace. Real SDK 2.4 client and server over Streamable HTTP on 127.0.0.1.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ATTR_MCP_TOOL_FAILURE_PEER_DECLARED as PEER_DECLARED } from '../../src/semconv.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../src/tool-failure/index.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry({}, { patch: false });

let http: HttpServer | undefined;
let port = 0;
beforeAll(async () => {
  const handler = v2Server.createMcpHandler(() => {
    const server = new v2Server.McpServer({ name: 'manual-server', version: '1' });
    server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    return t.instrumentation.instrumentServer(server);
  });
  http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        for (const value of Array.isArray(v) ? v : [v])
          if (value !== undefined) headers.append(k, value);
      const method = req.method ?? 'GET';
      handler
        .fetch(
          new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, {
            method,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
          }),
        )
        .then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          if (response.body !== null) for await (const chunk of response.body) res.write(chunk);
          res.end();
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
});
afterAll(async () => {
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
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
      await client.connect(
        new v2Client.StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
      );
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
