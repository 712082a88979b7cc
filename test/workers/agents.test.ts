/**
 * A remote MCP server on Cloudflare Workers made with the `agents` package (0.32.0):
 * `createMcpHandler` of `agents/mcp/server` over an SDK 2.4.0 `McpServer` that its factory makes
 * per request, each instrumented with `instrumentServer()`, with the same OpenTelemetry SDK for a
 * Worker as the SDK transport's test (test/fixtures/workers/agents-worker.mjs), run on the real
 * workerd through the scenario of ./scenario.ts.
 */
import { describeWorker } from './scenario.js';

describeWorker({
  title: 'agents 0.32.0 createMcpHandler (SDK 2.4.0 McpServer) on workerd, instrumented by hand',
  files: { worker: 'agents-worker.mjs', config: 'agents-wrangler.json' },
  service: 'mcp-agents-worker',
});
