export { createToolFailureProxy } from './proxy.js';
export { forwardParams, upstreamFailureInit, idempotentToolsOf } from './forward.js';
export type { UpstreamProblem } from './forward.js';
export type {
  ToolFailureProxy,
  ToolFailureProxyOptions,
  UpstreamTransportFactory,
} from './types.js';
