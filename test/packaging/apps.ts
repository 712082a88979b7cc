/**
 * The application the install-level tests run: an MCP SDK 1.x server and client linked in memory,
 * one call of a tool that throws, the failure's `correlationId` printed as
 * `correlationId=<id>`. As an ES module or CommonJS source text.
 */

/** The call itself, between the imports and whatever follows. */
const call = (tool: string, message: string): string => `
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('${tool}', {}, async () => { throw new Error('${message}'); });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(a);
  const r = await client.callTool({ name: '${tool}', arguments: {} });
  console.log('correlationId=' + r._meta['io.modelcontextprotocol/toolFailure'].correlationId);
  await client.close();
`;

/** The app as an ES module; `rest` runs after the call. */
export function failingCallModule(tool: string, message: string, rest = ''): string {
  return `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
${call(tool, message)}
${rest}
`;
}

/** The app as CommonJS. */
export function failingCallCommonJs(tool: string, message: string): string {
  return `const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
(async () => {${call(tool, message)}})();
`;
}
