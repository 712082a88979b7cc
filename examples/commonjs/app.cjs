// A CommonJS app: an McpServer and a client over an in-memory transport, instrumented by the
// CommonJS setup file. Run:
//   node --require ./examples/telemetry.cjs examples/commonjs/app.cjs
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { SpanKind } = require('@opentelemetry/api');
const { TOOL_FAILURE_META_KEY, ToolFailureError } = require('@omcp/tool-failure');

function fail(reason) {
  process.stderr.write(`FAIL: ${reason}\n`);
  process.exit(1);
}

async function main() {
  const exporter = globalThis[Symbol.for('@omcp/examples.spanExporter')];
  if (exporter === undefined) {
    fail('telemetry not loaded: run with node --require ./examples/telemetry.cjs <example>');
  }
  const server = new McpServer({ name: 'cjs-example', version: '1.0.0' });
  server.registerTool('approve_expense', { description: 'Approve an expense.' }, async () => {
    throw new ToolFailureError({
      class: 'governance',
      code: 'user_action_required',
      message: 'Expenses over 500 EUR need a manager approval.',
      agentGuidance: 'Ask the user to request approval from their manager.',
    });
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'cjs-client', version: '1.0.0' });
  await client.connect(clientSide);

  const result = await client.callTool({ name: 'approve_expense', arguments: {} });
  const failure = result._meta && result._meta[TOOL_FAILURE_META_KEY];
  if (result.isError !== true || failure === undefined) fail('no failure object in the result');
  if (failure.class !== 'governance' || failure.code !== 'user_action_required') {
    fail(`expected governance/user_action_required, got ${failure.class}/${failure.code}`);
  }
  const serverSpan = exporter
    .getFinishedSpans()
    .find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call approve_expense');
  if (serverSpan === undefined) fail('no server span tools/call approve_expense');
  if (serverSpan.spanContext().traceId !== failure.correlationId) {
    fail('correlationId is not the trace ID of the server span');
  }
  console.log(
    `approve_expense: ${failure.class}/${failure.code} correlationId=${failure.correlationId}`,
  );
  await client.close();
  console.log('OK commonjs');
}

main().catch((error) => fail(String(error)));
