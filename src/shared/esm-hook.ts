import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_NAME } from '../version.js';

type HookClass = new (modules: string[], hookFn: () => void) => { unhook(): void };

/** What this package uses of import-in-the-middle's main module. */
export interface ImportInTheMiddle {
  Hook: HookClass;
  /** Absent from copies older than the loader's include list fed by `Hook` calls. */
  createAddHookMessageChannel?: () => {
    registerOptions: { data: Record<string, unknown>; transferList: unknown[] };
    waitForAllMessagesAcknowledged: () => Promise<void>;
  };
}

/** A module of its own URL: only a loader that wraps every import sees it. */
const PROBE = 'data:text/javascript,export const omcpEsmHookProbe = 1;';

/** `text` matched literally inside a regular expression. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The probe's URL as a loader's include list takes it (it takes no `data:` strings). */
export const ESM_HOOK_PROBE_PATTERN = new RegExp(`^${escapeRegExp(PROBE)}$`);

/**
 * The import-in-the-middle copy that this package's `@opentelemetry/instrumentation` patches ES
 * modules with: resolved from `from` (a file of this package), or as the application resolves
 * this package.
 */
export function instrumentationIitm(from?: string): ImportInTheMiddle | undefined {
  try {
    const self =
      from ??
      createRequire(join(process.cwd(), 'package.json')).resolve(`${PACKAGE_NAME}/package.json`);
    const instrumentation = createRequire(self).resolve('@opentelemetry/instrumentation');
    return createRequire(instrumentation)('import-in-the-middle') as ImportInTheMiddle;
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
  const Hook = instrumentationIitm()?.Hook;
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
