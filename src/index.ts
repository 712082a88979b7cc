/**
 * The instrumentation: `McpInstrumentation`, the manual `instrumentClient` and
 * `instrumentServer`, and their configuration types. The rest of the package is behind
 * subpaths, each barrel the one source of its part: `./retry` (the client retry policy),
 * `./semconv`, `./relay`, `./workers`, `./executable` and `./frameworks/*`.
 *
 * @module @omcp/instrumentation-mcp
 */
export { McpInstrumentation, SDK_V1_RANGE, SDK_V2_RANGE } from './instrumentation.js';
export { instrumentClient, instrumentServer } from './default-instance.js';
export { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';
export type {
  McpInstrumentationConfig,
  McpRequestInfo,
  McpResponseInfo,
  McpSpanHook,
} from './types.js';
