// ES module telemetry setup. Load it before the app so the MCP SDK is patched when imported:
//   node --import ./examples/telemetry.mjs examples/high-level-server/server.mjs
// Spans go to an in-memory exporter, the only exporter configured here: the examples read it to
// check their own output. A real app would export over OTLP instead (see the README).
import { register } from 'node:module';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { McpInstrumentation } from '@omcp/instrumentation-mcp';

// The loader hook sees only modules imported after this line, hence the separate setup file.
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);

/** Every span the process ends, kept in memory. */
export const spanExporter = new InMemorySpanExporter();

const provider = new NodeTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(spanExporter)],
});
provider.register();
registerInstrumentations({ instrumentations: [new McpInstrumentation()] });

// The examples find the exporter here, whichever module system loaded this file.
globalThis[Symbol.for('@omcp/examples.spanExporter')] = spanExporter;
