// Zero-code entry for ES module apps: node --import @omcp/instrumentation-mcp/register app.mjs
// (bun --preload, deno run --preload). Registers OpenTelemetry's loader hook (so ES module imports
// of the MCP SDK are patched), limited to the modules that are instrumented (in the application's
// thread where Node.js can), then starts an SDK configured from OTEL_* variables with the MCP
// instrumentation enabled.
// Whatever goes wrong here (an optional dependency left out, a broken SDK setting) is one line
// on stderr, and the application runs without telemetry rather than not at all.
import { fileURLToPath } from 'node:url';
import messages from './not-started.cjs';

// Bun and Deno run no loader hooks for module.register() (waiting for one hung Bun and ended
// Deno): there the application's MCP SDK is imported and patched before the application imports
// it (one module instance per file), resolved from here, where the peer dependency resolves.
const other =
  process.versions.bun !== undefined
    ? `Bun ${process.versions.bun}`
    : process.versions.deno !== undefined
      ? `Deno ${process.versions.deno}`
      : undefined;

try {
  const self = fileURLToPath(import.meta.url);
  if (other !== undefined) {
    const { startWithoutHooks } = await import('../dist/esm/register/preload.js');
    await startWithoutHooks(
      self,
      other,
      { resolve: (specifier) => import.meta.resolve(specifier), load: (url) => import(url) },
      (message) => process.stderr.write(`@omcp/instrumentation-mcp/register: ${message}\n`),
    );
  } else {
    const { startTelemetry, warn } = await import('../dist/esm/register/start.js');
    const { registerLoaderHook } = await import('../dist/esm/register/loader-hook.js');
    const hook = await registerLoaderHook(self, process.env, warn);
    startTelemetry([self]);
    // The application's imports wait until the hook has every module name enabled above.
    await hook.settled();
  }
} catch (error) {
  process.stderr.write(messages.notStarted(error));
}
