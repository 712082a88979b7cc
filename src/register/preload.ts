import { fileURLToPath } from 'node:url';
import { firstLineOf } from '@omcp/tool-failure/wire';
import {
  INSTRUMENTED_PACKAGES,
  SDK_V1_RANGE,
  SDK_V2_RANGE,
  skipEsmHookCheck,
} from '../instrumentation.js';
import { inRange } from '../shared/version-range.js';
import { startTelemetry, versionOf, type LoadedModules } from './start.js';

/**
 * How the register entry reaches the application's modules where no loader hook runs (Bun,
 * Deno): resolved and imported as the entry itself would (`import.meta.resolve`, `import()`).
 * The MCP SDK is a peer dependency, so it resolves to the application's own copy.
 */
export interface ModuleAccess {
  /** The URL a specifier resolves to; throws when it resolves nowhere. */
  resolve(specifier: string): string;
  /** Imports a module by URL. */
  load(url: string): Promise<object>;
}

/** The MCP SDK modules the patches take, as the application imports them. */
const SDK_MODULES = [
  {
    slot: 'v1Protocol',
    name: INSTRUMENTED_PACKAGES.sdkV1,
    specifier: `${INSTRUMENTED_PACKAGES.sdkV1}/shared/protocol.js`,
    range: SDK_V1_RANGE,
  },
  {
    slot: 'v1Mcp',
    name: INSTRUMENTED_PACKAGES.sdkV1,
    specifier: `${INSTRUMENTED_PACKAGES.sdkV1}/server/mcp.js`,
    range: SDK_V1_RANGE,
  },
  {
    slot: 'v2',
    name: INSTRUMENTED_PACKAGES.client,
    specifier: INSTRUMENTED_PACKAGES.client,
    range: SDK_V2_RANGE,
  },
  {
    slot: 'v2',
    name: INSTRUMENTED_PACKAGES.server,
    specifier: INSTRUMENTED_PACKAGES.server,
    range: SDK_V2_RANGE,
  },
] as const;

/** The MCP SDK modules imported up front, and the installed versions left alone. */
export interface ImportedSdk {
  loaded: LoadedModules;
  /** `name version` of each resolvable package outside its supported range. */
  unsupported: string[];
  /** `specifier (first line of the error)` of each module that resolved but failed to import. */
  failed: string[];
}

/**
 * Imports the application's MCP SDK modules (1.x and 2.x, whichever resolve) before the
 * application does: ES modules are one instance per resolved file, so the application gets the
 * classes whose prototypes the patches wrapped. A package outside its range is not imported; a
 * module whose import fails is left out (the application may never import it).
 */
export async function importMcpSdk(access: ModuleAccess): Promise<ImportedSdk> {
  const loaded: LoadedModules = {};
  const unsupported = new Set<string>();
  const failed: string[] = [];
  for (const module of SDK_MODULES) {
    let url: string;
    try {
      url = access.resolve(module.specifier);
    } catch {
      continue;
    }
    const version = url.startsWith('file:')
      ? versionOf(fileURLToPath(url), module.name)
      : undefined;
    if (version === undefined || !inRange(version, module.range)) {
      unsupported.add(`${module.name} ${version ?? '(version unknown)'}`);
      continue;
    }
    let exports: object;
    try {
      exports = await access.load(url);
    } catch (error) {
      failed.push(`${module.specifier} (${firstLineOf(error)})`);
      continue;
    }
    if (module.slot === 'v2') (loaded.v2 ??= []).push(exports);
    else loaded[module.slot] = exports;
  }
  return { loaded, unsupported: [...unsupported], failed };
}

/**
 * The register entry on a runtime without Node.js module loader hooks (`runtime`: `Bun 1.4.5`,
 * `Deno 2.9.6`): the application's MCP SDK imported and patched up front, then the application's
 * OpenTelemetry SDK started as on Node.js. Without an MCP SDK to patch, one line says so and
 * nothing starts.
 */
export async function startWithoutHooks(
  from: string,
  runtime: string,
  access: ModuleAccess,
  notice: (message: string) => void,
): Promise<void> {
  if (process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return;
  const { loaded, unsupported, failed } = await importMcpSdk(access);
  const found = [...unsupported, ...failed.map((f) => `${f}, which failed to import`)];
  if (loaded.v1Protocol === undefined && loaded.v2 === undefined) {
    const also = found.length === 0 ? '' : ` (found ${found.join('; ')})`;
    notice(
      `telemetry not started: ${runtime} has no module loader hooks, and no MCP SDK this package instruments resolves from it${also}: ${INSTRUMENTED_PACKAGES.sdkV1} ${SDK_V1_RANGE}, ${INSTRUMENTED_PACKAGES.client} or ${INSTRUMENTED_PACKAGES.server} ${SDK_V2_RANGE}`,
    );
    return;
  }
  if (failed.length > 0) notice(`not instrumented, its import failed: ${failed.join('; ')}`);
  skipEsmHookCheck();
  startTelemetry([from], undefined, loaded);
}
