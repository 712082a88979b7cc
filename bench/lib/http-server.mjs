// The Streamable HTTP child of one variant: SDK 2.x's `createMcpHandler` (a new server per
// request, the 2026-07-28 revision's stateless mode) behind node:http on 127.0.0.1, an ephemeral
// port. Driven by its worker over IPC: the port once listening, then its CPU time and spans.
import { createServer } from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { setupOtel, slim } from './otel.mjs';
import { installVariant } from './variants.mjs';

const { Headers, Request } = globalThis;

const otel = setupOtel();
const variant = await installVariant(process.env.BENCH_VARIANT ?? 'baseline');
const net = 'tcp';

function toolServer() {
  const server = variant.server(new McpServer({ name: 'bench-server', version: '1.0.0' }));
  server.registerTool(
    'ok',
    { description: 'succeeds' },
    variant.tool('ok', async () => ({ content: [{ type: 'text', text: 'done' }] }), net),
  );
  server.registerTool(
    'fail',
    { description: 'throws' },
    variant.tool(
      'fail',
      async () => {
        throw new Error('upstream refused the request');
      },
      net,
    ),
  );
  return server;
}

const handler = createMcpHandler(() => toolServer());
let port = 0;

/** node:http to the web-standard handler and back. */
async function serve(req, res) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  const method = req.method ?? 'GET';
  const response = await handler.fetch(
    new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body !== null) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

const http = createServer((req, res) => {
  serve(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
port = http.address().port;

const handlers = {
  async cpu() {
    // Export is part of the cost: what the measured calls queued is flushed before reading.
    await otel.tracerProvider.forceFlush();
    await otel.loggerProvider.forceFlush();
    const u = process.cpuUsage();
    return u.user + u.system;
  },
  async stats() {
    await otel.tracerProvider.forceFlush();
    const spans = otel.spans.ring.map(slim);
    otel.spans.reset();
    return { spans };
  },
  async reset() {
    await otel.tracerProvider.forceFlush();
    otel.spans.reset();
    return {};
  },
  async exit() {
    http.closeAllConnections();
    http.close();
    setTimeout(() => process.exit(0), 20);
    return {};
  },
};
process.on('message', (msg) => {
  handlers[msg.cmd]().then((result) => process.send({ id: msg.id, result }));
});
process.on('disconnect', () => process.exit(0));
process.send({ port });
