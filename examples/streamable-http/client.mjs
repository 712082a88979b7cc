// Starts the Streamable HTTP server in this process on 127.0.0.1, calls its failing tools over
// HTTP and checks each failure against the server span of the same trace. Run:
//   node --import ./examples/telemetry.mjs examples/streamable-http/client.mjs
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check, expectFailure, report, spanExporter } from '../check.mjs';
import { EXPECTED } from '../high-level-server/tools.mjs';
import { startServer } from './server.mjs';

spanExporter(); // fails early, with the command to use, when the telemetry is not loaded
const { url, close } = await startServer();
try {
  const client = new Client({ name: 'http-example', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  console.log(`connected to ${url}`);

  for (const [tool, expected] of Object.entries(EXPECTED)) {
    const result = await client.callTool({ name: tool, arguments: {} });
    report(tool, expectFailure(tool, result, expected));
  }
  // A thrown plain Error: the instrumentation classifies it as an internal error.
  const error = await client.callTool({ name: 'test_error_handling', arguments: {} });
  report(
    'test_error_handling',
    expectFailure('test_error_handling', error, { class: 'reliability', code: 'internal_error' }),
  );
  const text = await client.callTool({ name: 'test_simple_text', arguments: {} });
  check(text.isError !== true, 'test_simple_text should succeed');
  await client.close();
} finally {
  await close();
}
console.log('OK streamable-http');
