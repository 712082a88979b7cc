// Resolves the peer instrumentations from this separate package's own node_modules.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** autotel's instance wrappers (ESM). */
export async function loadAutotel() {
  const client = await import('autotel-mcp-instrumentation/client');
  const server = await import('autotel-mcp-instrumentation/server');
  return {
    instrumentMcpClient: client.instrumentMcpClient,
    instrumentMcpServer: server.instrumentMcpServer,
  };
}

/** Traceloop's InstrumentationBase subclass (CommonJS). */
export function loadTraceloop() {
  return require('@traceloop/instrumentation-mcp');
}
