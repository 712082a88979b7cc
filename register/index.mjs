// Zero-code entry for ES module apps: node --import @omcp/instrumentation-mcp/register app.mjs
// Registers OpenTelemetry's loader hook (so ES module imports of the MCP SDK are patched),
// then starts an SDK configured from OTEL_* variables with the MCP instrumentation enabled.
// Whatever goes wrong here (an optional dependency left out, a broken SDK setting) is one line
// on stderr, and the application runs without telemetry rather than not at all.
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import messages from './not-started.cjs';

try {
  const { startTelemetry } = await import('../dist/esm/register/start.js');
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  startTelemetry([fileURLToPath(import.meta.url)]);
} catch (error) {
  process.stderr.write(messages.notStarted(error));
}
