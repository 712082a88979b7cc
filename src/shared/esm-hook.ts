import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_NAME } from '../version.js';

type HookClass = new (modules: string[], hookFn: () => void) => { unhook(): void };

/** A module of its own URL: only a loader that wraps every import sees it. */
const PROBE = 'data:text/javascript,export const omcpEsmHookProbe = 1;';

/**
 * `Hook` of the import-in-the-middle copy that this package's `@opentelemetry/instrumentation`
 * patches ES modules with, resolved as the application resolves this package.
 */
function instrumentationHook(): HookClass | undefined {
  try {
    const app = createRequire(join(process.cwd(), 'package.json'));
    const self = app.resolve(`${PACKAGE_NAME}/package.json`);
    const instrumentation = createRequire(self).resolve('@opentelemetry/instrumentation');
    return (createRequire(instrumentation)('import-in-the-middle') as { Hook: HookClass }).Hook;
  } catch {
    return undefined;
  }
}

/**
 * Whether ES module imports pass through OpenTelemetry's loader hook (import-in-the-middle),
 * without which no ES module import of the MCP SDK can be patched: a probe module is imported
 * under a hook of the instrumentation's own copy. `undefined` when that copy cannot be found.
 */
export async function esmLoaderHookActive(): Promise<boolean | undefined> {
  const Hook = instrumentationHook();
  if (Hook === undefined) return undefined;
  let seen = false;
  const hook = new Hook([PROBE], () => {
    seen = true;
  });
  try {
    await import(PROBE);
  } catch {
    return undefined;
  } finally {
    hook.unhook();
  }
  return seen;
}

/** What an ES module application without the loader hook is told, once. */
export const NO_ESM_HOOK_WARNING =
  "mcp: ES module imports of the MCP SDK are not instrumented: OpenTelemetry's loader hook is not registered. Before the SDK loads, add module.register('@opentelemetry/instrumentation/hook.mjs', import.meta.url), or start with node --import @omcp/instrumentation-mcp/register; or instrument objects with instrumentClient() / instrumentServer()";
