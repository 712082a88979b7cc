// The upstream of the gateway section (bench/lib/gateway-run.mjs): one SDK 1.x stdio server
// with one tool, `echo`, that answers with its `text` argument. Every gateway row relays to
// this same script, and the direct row calls it over stdio itself.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'gateway-upstream', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
await server.connect(new StdioServerTransport());
