/**
 * The relaying proxy that preserves `_meta` (the `mcp-failure-proxy` executable runs it), its
 * Streamable HTTP front, and that front's request guard and refusals, for a server that should
 * refuse as the proxy does (the conformance kit's scripted server).
 *
 * @module @omcp/mcp-failure-proxy
 */
export { createToolFailureProxy } from './proxy.js';
export { ProxyHttpConfigError, serveStreamableHttp } from './http.js';
export type { ProxyHttpEndpoint } from './http.js';
export { DEFAULT_HTTP_LIMITS } from './http-limits.js';
export type { ProxyHttpLimits } from './http-limits.js';
export type {
  ProxyHttpOptions,
  ToolFailureProxy,
  ToolFailureProxyOptions,
  UpstreamTransportFactory,
} from './types.js';
export { createRequestGuard, refusalOf } from './http-guard.js';
export { refusalBody } from './http-limits.js';
export type { RefusalReason } from './http-limits.js';
export { writeRefusal } from './http-refusal.js';
