import { INSTRUMENTED_PACKAGES } from '../instrumentation.js';
import { ESM_HOOK_PROBE_PATTERN, escapeRegExp, instrumentationIitm } from '../shared/esm-hook.js';

/** The variable that chooses which ES modules the register entry's loader hook wraps. */
export const ESM_HOOK_VARIABLE = 'OTEL_INSTRUMENTATION_MCP_ESM_HOOK';

/** A module URL inside the folder of package `name`, wherever a package manager put it. */
export function packagePattern(name: string): RegExp {
  return new RegExp(`/node_modules/${escapeRegExp(name)}/`);
}

/** What `module.register` takes as its third argument. */
export interface RegisterOptions {
  data: Record<string, unknown>;
  transferList?: unknown[];
}

/** How the register entry registers OpenTelemetry's loader hook. */
export interface LoaderHook {
  /** `undefined`: the hook wraps every ES module (`OTEL_INSTRUMENTATION_MCP_ESM_HOOK=all`). */
  options: RegisterOptions | undefined;
  /** Resolves once the loader has taken every module name `Hook` calls sent it so far. */
  settled(): Promise<void>;
}

/**
 * The loader hook limited to what is instrumented: every file of the packages the module
 * definitions name ({@link INSTRUMENTED_PACKAGES}), the instrumentation's own probe, and each
 * module another instrumentation hooks through the same import-in-the-middle copy (its `Hook`
 * call sends the names to the loader; only that copy's hooks are ever reached by this loader, so
 * no other instrumentation loses a module it could patch before). Wrapping every module the
 * application imports made the loader the largest part of a cold start.
 * `OTEL_INSTRUMENTATION_MCP_ESM_HOOK=all` wraps every module as before: for an instrumentation
 * that is enabled only after its module was imported, or hooks a package's inner ES module files.
 */
export function loaderHook(
  from: string,
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => undefined,
): LoaderHook {
  const everything: LoaderHook = { options: undefined, settled: () => Promise.resolve() };
  const raw = env[ESM_HOOK_VARIABLE]?.trim().toLowerCase();
  if (raw === 'all') return everything;
  if (raw !== undefined && raw !== '' && raw !== 'instrumented')
    warn(
      `${ESM_HOOK_VARIABLE}=${env[ESM_HOOK_VARIABLE]} is not instrumented or all; using the default`,
    );
  const include: unknown[] = [
    ...Object.values(INSTRUMENTED_PACKAGES).map(packagePattern),
    ESM_HOOK_PROBE_PATTERN,
  ];
  // Without the channel other instrumentations' modules could not join the list: wrap them all.
  const channel = instrumentationIitm(from)?.createAddHookMessageChannel?.();
  if (channel === undefined) return everything;
  const { data, transferList } = channel.registerOptions;
  return {
    options: { data: { ...data, include }, transferList },
    settled: () => channel.waitForAllMessagesAcknowledged(),
  };
}
