// A low-level Server (setRequestHandler) that answers tools/call with classified failures.
// Nothing converts thrown errors here: a tool failure must be returned as a result, never thrown
// as a JSON-RPC error. Run:
//   node --import ./examples/telemetry.mjs examples/low-level-server/server.mjs
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailureError, toolFailure } from '@omcp/tool-failure';
import { check, expectFailure, report, spanExporter } from '../check.mjs';

spanExporter(); // fails early, with the command to use, when the telemetry is not loaded

const TOOLS = [
  {
    name: 'delete_repository',
    inputSchema: { type: 'object' },
    annotations: { destructiveHint: true },
  },
  { name: 'read_secret', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'get_issue', inputSchema: { type: 'object', properties: { id: { type: 'number' } } } },
];

const server = new Server(
  { name: 'repo-admin', version: '1.0.0' },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case 'delete_repository':
      return toolFailure({
        class: 'governance',
        code: 'policy_blocked',
        message: 'Deleting repositories is blocked by the organisation policy.',
        agentGuidance: 'Tell the user an administrator must approve the deletion.',
      });
    case 'read_secret':
      return toolFailure({
        class: 'governance',
        code: 'permission_denied',
        message: 'The token lacks the secrets:read scope.',
        agentGuidance: 'Ask the user for a token with the secrets:read scope.',
      });
    case 'get_issue': {
      const id = request.params.arguments?.id;
      // A ToolFailureError turned into a result by hand: a low-level handler must return it.
      return new ToolFailureError({
        class: 'capability',
        code: id === undefined ? 'invalid_input' : 'resource_not_found',
        message: id === undefined ? 'Missing argument: id.' : `Issue ${id} does not exist.`,
        agentGuidance:
          id === undefined ? 'Pass the issue number as id.' : 'Check the issue number.',
      }).toResult();
    }
    default:
      return toolFailure({
        class: 'capability',
        code: 'capability_unsupported',
        message: 'Unknown tool.',
      });
  }
});

const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: 'low-level-example', version: '1.0.0' });
await client.connect(clientSide);

const calls = [
  ['delete_repository', {}, { class: 'governance', code: 'policy_blocked' }],
  ['read_secret', {}, { class: 'governance', code: 'permission_denied' }],
  ['get_issue', {}, { class: 'capability', code: 'invalid_input' }],
  ['get_issue', { id: 404 }, { class: 'capability', code: 'resource_not_found' }],
];
for (const [tool, args, expected] of calls) {
  const result = await client.callTool({ name: tool, arguments: args });
  report(tool, expectFailure(tool, result, expected));
}
const listed = await client.listTools();
check(listed.tools.length === TOOLS.length, 'tools/list should list every tool');

await client.close();
console.log('OK low-level-server');
