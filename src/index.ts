// The root entry point: the instrumentation. The rest of the package is behind subpaths, each
// barrel the one source of its part: `./retry` (the client retry policy), `./semconv` (the
// names), `./relay` (what an intermediary needs), `./executable`, `./frameworks/<name>`.
export { McpInstrumentation, SDK_V1_RANGE, SDK_V2_RANGE } from './instrumentation.js';
export { instrumentClient, instrumentServer } from './default-instance.js';
export { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';
export type {
  McpInstrumentationConfig,
  McpRequestInfo,
  McpResponseInfo,
  McpSpanHook,
} from './types.js';
