import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const s = new McpServer({ name: 'up', version: '1' });
s.registerTool('fail', {}, async () => ({ content: [{ type: 'text', text: 'no' }], isError: true, _meta: { 'io.modelcontextprotocol/toolFailure': { class: 'governance', code: 'permission_denied', correlationId: 'x', extra: [1] }, other: 2 } }));
s.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
await s.connect(new StdioServerTransport());
