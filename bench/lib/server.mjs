// The benchmark's MCP server: one tool that succeeds, one that throws.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** The scaling section's tools: each returns a text of its size, made once, not per call. */
export const PAYLOADS = { p1k: 1024, p10k: 10 * 1024, p100k: 100 * 1024, p1m: 1024 * 1024 };
const texts = Object.fromEntries(Object.entries(PAYLOADS).map(([k, n]) => [k, 'x'.repeat(n)]));

/**
 * Builds the server with `variant`'s wrappers; `extraTools` may add tools (e.g. stats);
 * `transport` is the `network.transport` the server is reached over (the mission floor's).
 */
export function createServer(variant, extraTools = {}, transport = 'inproc') {
  const raw = new McpServer({ name: 'bench-server', version: '1.0.0' });
  const server = variant.server(raw);
  server.registerTool(
    'ok',
    { description: 'succeeds' },
    variant.tool(
      'ok',
      async () => ({
        content: [{ type: 'text', text: 'done' }],
      }),
      transport,
    ),
  );
  server.registerTool(
    'fail',
    { description: 'throws' },
    variant.tool(
      'fail',
      async () => {
        throw new Error('upstream refused the request');
      },
      transport,
    ),
  );
  for (const tool of Object.keys(PAYLOADS)) {
    const result = { content: [{ type: 'text', text: texts[tool] }] };
    server.registerTool(
      tool,
      { description: `returns ${PAYLOADS[tool]} bytes` },
      variant.tool(tool, async () => result, transport),
    );
  }
  for (const [name, cb] of Object.entries(extraTools))
    server.registerTool(name, { description: name }, cb);
  return { server, raw };
}

/** The benchmark's server of `variant` and a client of it over an in-memory pair, connected. */
export async function connectInMemory(variant, clientName) {
  const { server } = createServer(variant, {}, 'inproc');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = variant.client(new Client({ name: clientName, version: '1.0.0' }), 'inproc');
  await client.connect(clientSide);
  return client;
}
