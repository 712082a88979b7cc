// Zero-code entry for ES module apps: node --import @omcp/instrumentation-mcp/register app.mjs
// Registers OpenTelemetry's loader hook (so ES module imports of the MCP SDK are patched),
// then starts an SDK configured from OTEL_* variables with the MCP instrumentation enabled.
import { register } from 'node:module';
import { startTelemetry } from '../dist/esm/register/start.js';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
startTelemetry();
