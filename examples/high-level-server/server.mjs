// A high-level McpServer whose tools return or throw classified failures, called over an
// in-memory transport. Run:
//   node --import ./examples/telemetry.mjs examples/high-level-server/server.mjs
// Serve it on stdio instead (for an MCP client such as the Inspector):
//   node --import @omcp/instrumentation-mcp/register examples/high-level-server/server.mjs --stdio
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { check, expectFailure, report, spanExporter } from '../check.mjs';
import { EXPECTED, createTravelServer } from './tools.mjs';

if (process.argv.includes('--stdio')) {
  await createTravelServer().connect(new StdioServerTransport());
} else {
  spanExporter(); // fails early, with the command to use, when the telemetry is not loaded
  const server = createTravelServer({ flakyFailures: 1 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'high-level-example', version: '1.0.0' });
  await client.connect(clientSide);

  for (const [tool, expected] of Object.entries(EXPECTED)) {
    const result = await client.callTool({ name: tool, arguments: {} });
    report(tool, expectFailure(tool, result, expected));
  }
  // search_flights failed once; the second call succeeds and carries no failure object.
  const ok = await client.callTool({ name: 'search_flights', arguments: {} });
  check(
    ok.isError !== true && ok._meta === undefined,
    'search_flights: second call should succeed',
  );
  console.log('search_flights: ok on the second call');

  await client.close();
  console.log('OK high-level-server');
}
