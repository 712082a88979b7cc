import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
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

/** import-in-the-middle's in-thread loader (`register-hooks.mjs`, 3.6 and later). */
interface InThreadLoader {
  register(options?: Record<string, unknown>): void;
  supportsSyncHooks(): boolean;
}

/**
 * The in-thread loader of the import-in-the-middle copy this package's
 * `@opentelemetry/instrumentation` uses (resolved from `from`), when that copy has one and the
 * running Node.js can run it (`module.registerHooks` with the fix it needs: 22.22.3, 24.11.1,
 * 25.1, 26 and later); undefined otherwise.
 */
async function inThreadLoader(from: string): Promise<InThreadLoader | undefined> {
  try {
    const instrumentation = createRequire(from).resolve('@opentelemetry/instrumentation');
    const iitm = dirname(
      createRequire(instrumentation).resolve('import-in-the-middle/package.json'),
    );
    const loader = (await import(
      pathToFileURL(join(iitm, 'register-hooks.mjs')).href
    )) as Partial<InThreadLoader>;
    if (typeof loader.register !== 'function' || typeof loader.supportsSyncHooks !== 'function')
      return undefined;
    return loader.supportsSyncHooks() ? (loader as InThreadLoader) : undefined;
  } catch {
    return undefined;
  }
}

/** The register entry's loader hook, registered. */
export interface RegisteredLoaderHook {
  /** Where it runs. */
  place: 'in-thread' | 'loader-thread';
  /** Resolves once the hook has every module name `Hook` calls sent it so far. */
  settled(): Promise<void>;
}

/**
 * Registers OpenTelemetry's ES module loader hook ({@link loaderHook}'s options) the cheapest way
 * the running Node.js allows: in the application's thread with `module.registerHooks` where it
 * can (no loader thread to start, and no `module.register`, deprecated from Node.js 26), else
 * `module.register('@opentelemetry/instrumentation/hook.mjs')` on the loader thread.
 */
export async function registerLoaderHook(
  from: string,
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => undefined,
): Promise<RegisteredLoaderHook> {
  const hook = loaderHook(from, env, warn);
  const loader = await inThreadLoader(from);
  if (loader === undefined) {
    register('@opentelemetry/instrumentation/hook.mjs', pathToFileURL(from).href, hook.options);
    return { place: 'loader-thread', settled: hook.settled };
  }
  if (hook.options === undefined) {
    loader.register();
    return { place: 'in-thread', settled: hook.settled };
  }
  const included = liveInclude(hook.options);
  loader.register({ shouldInclude: included.test });
  return {
    place: 'in-thread',
    settled: () => {
      included.drain();
      return hook.settled();
    },
  };
}

/**
 * The include decision of {@link loaderHook}'s options, kept live in the application's thread: the
 * module names each `Hook` call sends over the channel are read synchronously (and acknowledged)
 * at each decision, so a module hooked just before its import is wrapped, as the loader thread
 * does by taking each message before the import that follows it.
 */
function liveInclude(options: RegisterOptions): {
  test: (url: string, specifier: string) => boolean;
  drain: () => void;
} {
  const patterns = (options.data.include as unknown[]).filter((p) => p instanceof RegExp);
  const port = options.data.addHookMessagePort as MessagePort;
  const names = new Set<string>();
  const drain = (): void => {
    for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
      for (const name of m.message as string[]) names.add(name).add(`node:${name}`);
      port.postMessage('ack');
    }
  };
  const test = (url: string, specifier: string): boolean => {
    if (patterns.some((p) => p.test(url))) return true;
    drain();
    if (names.has(specifier) || names.has(url)) return true;
    if (!url.startsWith('file:')) return false;
    try {
      return names.has(fileURLToPath(url));
    } catch {
      return false;
    }
  };
  return { test, drain };
}
