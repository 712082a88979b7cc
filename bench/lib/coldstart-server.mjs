// The server of the cold-start section: an SDK 1.x stdio server with one tool and no telemetry
// code, as a host starts it at session start. What it costs to start is the whole measurement,
// so it loads nothing the SDK does not.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'coldstart', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
await server.connect(new StdioServerTransport());
