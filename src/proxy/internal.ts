// `@omcp/mcp-failure-proxy/internal`: the proxy's HTTP front pieces the conformance kit's scripted
// server answers with (`@omcp/mcp-failures`), so both refuse alike. Not a stable interface: names
// here may change in any release.
export { createRequestGuard, refusalOf } from './http-guard.js';
export { refusalBody } from './http-limits.js';
export type { RefusalReason } from './http-limits.js';
export { writeRefusal } from './http-refusal.js';
