// The travel-desk tools and the conformance fixture tools over Streamable HTTP (stateless), on
// 127.0.0.1 only. No telemetry code: instrument it with zero code, e.g.
//   OTEL_TRACES_EXPORTER=console node --import @omcp/instrumentation-mcp/register \
//     examples/streamable-http/server.mjs
// PORT picks the port (default 0: any free port). It prints "listening <url>" and serves until
// SIGTERM or SIGINT.
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createTravelServer } from '../high-level-server/tools.mjs';
import { registerConformanceTools } from './conformance-tools.mjs';

/** One McpServer per request: stateless Streamable HTTP keeps no session between requests. */
function createMcpServer() {
  const server = createTravelServer({ flakyFailures: 1, capabilities: { logging: {} } });
  registerConformanceTools(server);
  return server;
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** Starts the HTTP server; resolves to its MCP endpoint URL and a `close()`. */
export async function startServer({ port = 0 } = {}) {
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no standalone SSE stream and no session to delete.
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed.' },
          id: null,
        }),
      );
      return;
    }
    const server = createMcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    readJson(req)
      .then(async (body) => {
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      })
      .catch(() => {
        if (!res.headersSent) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32700, message: 'Parse error' },
              id: null,
            }),
          );
        }
      });
  });
  await new Promise((resolve) => http.listen(port, '127.0.0.1', resolve));
  const { port: actual } = http.address();
  return {
    url: `http://127.0.0.1:${actual}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { url, close } = await startServer({ port: Number(process.env.PORT ?? 0) });
  console.log(`listening ${url}`);
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => void close().then(() => process.exit(0)));
  }
}
