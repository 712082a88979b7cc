export { createToolFailureProxy } from './proxy.js';
export { forwardParams, upstreamFailureInit } from './forward.js';
export type { UpstreamProblem } from './forward.js';
export type {
  ToolFailureProxy,
  ToolFailureProxyOptions,
  UpstreamTransportFactory,
} from './types.js';
