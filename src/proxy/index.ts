// `@omcp/instrumentation-mcp/proxy`: the relaying proxy that preserves `_meta` (the
// `mcp-failure-proxy` CLI runs it).
export { createToolFailureProxy } from './proxy.js';
export type {
  ToolFailureProxy,
  ToolFailureProxyOptions,
  UpstreamTransportFactory,
} from './types.js';
