// Zero-code entry for ES module apps: node --import @omcp/instrumentation-mcp/register app.mjs
// Registers OpenTelemetry's loader hook (so ES module imports of the MCP SDK are patched), limited
// to the modules that are instrumented (in the application's thread where Node.js can), then
// starts an SDK configured from OTEL_* variables with the MCP instrumentation enabled.
// Whatever goes wrong here (an optional dependency left out, a broken SDK setting) is one line
// on stderr, and the application runs without telemetry rather than not at all.
import { fileURLToPath } from 'node:url';
import messages from './not-started.cjs';

// Bun and Deno run no off-thread loader for module.register(): the acknowledgment the wait below
// needs never comes (Bun hangs before the application starts; Deno ends it). Say so, and let the
// application run exactly as without the entry.
const other =
  process.versions.bun !== undefined
    ? `Bun ${process.versions.bun}`
    : process.versions.deno !== undefined
      ? `Deno ${process.versions.deno}`
      : undefined;

if (other !== undefined) {
  process.stderr.write(
    `@omcp/instrumentation-mcp/register: telemetry not started: ${other} has no Node.js module loader hooks for this entry; start your OpenTelemetry SDK yourself and use instrumentServer() / instrumentClient() from @omcp/instrumentation-mcp\n`,
  );
} else
  try {
    const { startTelemetry, warn } = await import('../dist/esm/register/start.js');
    const { registerLoaderHook } = await import('../dist/esm/register/loader-hook.js');
    const self = fileURLToPath(import.meta.url);
    const hook = await registerLoaderHook(self, process.env, warn);
    startTelemetry([self]);
    // The application's imports wait until the hook has every module name enabled above.
    await hook.settled();
  } catch (error) {
    process.stderr.write(messages.notStarted(error));
  }
