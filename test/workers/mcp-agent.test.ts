/**
 * A remote MCP server on Cloudflare Workers made with the `agents` package's `McpAgent` (0.32.0:
 * a Durable Object per session, over an SDK 1.32.2 `McpServer` instrumented with
 * `instrumentServer()`), with the same OpenTelemetry SDK for a Worker as the SDK transport's test
 * (test/fixtures/workers/mcp-agent-worker.mjs), run on the real workerd through the scenario of
 * ./scenario.ts.
 */
import { describeWorker } from './scenario.js';

describeWorker({
  title:
    'agents 0.32.0 McpAgent (SDK 1.32.2 McpServer, a Durable Object) on workerd, instrumented by hand',
  files: { worker: 'mcp-agent-worker.mjs', config: 'mcp-agent-wrangler.json' },
  service: 'mcp-agent-worker',
});
