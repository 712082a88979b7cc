// CommonJS telemetry setup. Require it before the app:
//   node --require ./examples/telemetry.cjs examples/commonjs/app.cjs
// CommonJS needs no loader hook: require() of the MCP SDK is patched once this has run.
// Spans go to an in-memory exporter, the only exporter configured here.
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { McpInstrumentation } = require('@omcp/instrumentation-mcp');

const spanExporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(spanExporter)],
});
provider.register();
registerInstrumentations({ instrumentations: [new McpInstrumentation()] });

globalThis[Symbol.for('@omcp/examples.spanExporter')] = spanExporter;

module.exports = { spanExporter };
