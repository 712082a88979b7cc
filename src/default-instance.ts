import { McpInstrumentation } from './instrumentation.js';
import type { McpInstrumentationConfig } from './types.js';

let shared: McpInstrumentation | undefined;

function instance(config?: McpInstrumentationConfig): McpInstrumentation {
  if (config !== undefined) return new McpInstrumentation({ ...config, enabled: false });
  // No module hooks: manual mode patches only the objects it is given.
  return (shared ??= new McpInstrumentation({ enabled: false }));
}

/**
 * Instruments one MCP client object in place (SDK 1.x or 2.x), using the global
 * OpenTelemetry providers. For bundlers and code loaded before any module hook.
 */
export function instrumentClient<T extends object>(
  client: T,
  config?: McpInstrumentationConfig,
): T {
  return instance(config).instrumentClient(client);
}

/** Instruments one `McpServer` or low-level `Server` in place, using the global providers. */
export function instrumentServer<T extends object>(
  server: T,
  config?: McpInstrumentationConfig,
): T {
  return instance(config).instrumentServer(server);
}
