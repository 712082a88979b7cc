// The relaying proxy in one process: client -> createToolFailureProxy -> the travel-desk server.
// It checks that the failure objects the server made reach the client unchanged, correlationId
// included, and that the proxy's own spans sit in the same trace. Run:
//   node --import ./examples/telemetry.mjs examples/proxy/proxy.mjs
// The same as a command: mcp-failure-proxy --stdio -- node examples/high-level-server/server.mjs --stdio
import { SpanKind } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createToolFailureProxy } from '@omcp/mcp-failure-proxy';
import { check, failureOf, spanExporter } from '../check.mjs';
import { EXPECTED, createTravelServer } from '../high-level-server/tools.mjs';

const exporter = spanExporter();
const upstreamServer = createTravelServer({ flakyFailures: 0 });
const proxy = createToolFailureProxy({
  upstream: () => {
    const [toProxy, toServer] = InMemoryTransport.createLinkedPair();
    void upstreamServer.connect(toServer);
    return toProxy;
  },
});
const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
await proxy.connect(proxySide);
const client = new Client({ name: 'proxy-example', version: '1.0.0' });
await client.connect(clientSide);

for (const tool of ['read_calendar', 'export_itinerary_pdf']) {
  const result = await client.callTool({ name: tool, arguments: {} });
  const failure = failureOf(result);
  check(failure !== undefined, `${tool}: the failure object did not survive the proxy`);
  check(
    failure.class === EXPECTED[tool].class && failure.code === EXPECTED[tool].code,
    `${tool}: expected ${EXPECTED[tool].class}/${EXPECTED[tool].code} through the proxy`,
  );
  const spans = exporter
    .getFinishedSpans()
    .filter((s) => s.spanContext().traceId === failure.correlationId);
  const kinds = spans.filter((s) => s.name === `tools/call ${tool}`).map((s) => s.kind);
  // client span, proxy server + client spans, upstream server span: all in the correlationId's trace
  check(
    kinds.filter((k) => k === SpanKind.CLIENT).length === 2,
    `${tool}: expected 2 client spans in the trace`,
  );
  check(
    kinds.filter((k) => k === SpanKind.SERVER).length === 2,
    `${tool}: expected 2 server spans in the trace`,
  );
  const upstreamSpan = spans.find(
    (s) => s.kind === SpanKind.SERVER && s.attributes['mcp.tool.failure.source'] !== 'upstream',
  );
  check(
    upstreamSpan?.attributes['mcp.tool.failure.correlation_id'] === failure.correlationId,
    `${tool}: the server span does not carry the correlationId the client saw`,
  );
  console.log(
    `${tool.padEnd(22)} ${failure.class}/${failure.code} relayed unchanged, correlationId ${failure.correlationId}`,
  );
}

await client.close();
await proxy.close();
console.log('OK proxy');
