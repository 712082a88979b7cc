// The upstream MCP server of the soak (bench/soak.mjs, packages/proxy/test/soak.test.ts): over stdio
// (argv "stdio") or Streamable HTTP on 127.0.0.1, sessionful (argv "http": it prints
// "listening <url>" on stdout). Tool "sink" takes any arguments and answers with their size;
// tool "flaky" (idempotent) fails the first attempt of every other call (an even number before
// the ":" of its `data`) with a retryable reliability failure, so a retrying client retries
// every other call once.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const KEY = 'io.modelcontextprotocol/toolFailure';
/** Set by the retry engine on the params of every attempt after the first. */
const ATTEMPT = 'dev.omcp/attempt';

function toolServer() {
  const server = new McpServer({ name: 'soak-upstream', version: '1.0.0' });
  const args = { data: z.unknown().optional() };
  server.registerTool('sink', { inputSchema: args }, async ({ data }) => ({
    content: [{ type: 'text', text: String(JSON.stringify(data ?? null).length) }],
  }));
  server.registerTool(
    'flaky',
    { inputSchema: args, annotations: { idempotentHint: true } },
    async ({ data }, extra) => {
      const n = Number(String(data).split(':', 1)[0]);
      if (n % 2 === 0 && extra._meta?.[ATTEMPT] === undefined)
        return {
          isError: true,
          content: [{ type: 'text', text: `transient failure ${n}` }],
          _meta: {
            [KEY]: {
              class: 'reliability',
              code: 'unavailable',
              retryable: true,
              correlationId: `soak-${n}`,
            },
          },
        };
      return { content: [{ type: 'text', text: `ok ${n}` }] };
    },
  );
  return server;
}

if (process.argv[2] === 'http') {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text === '' ? undefined : JSON.parse(text);
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await toolServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  // Idle keep-alive connections are kept longer than any stall of a loaded machine: a client
  // reusing a connection the server is closing gets a reset, which is not what a soak measures.
  http.keepAliveTimeout = 600_000;
  http.headersTimeout = 601_000;
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`);
  });
} else {
  await toolServer().connect(new StdioServerTransport());
}
