import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
  isWrapped,
} from '@opentelemetry/instrumentation';
import type { Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import { Hook as RequireHook } from 'require-in-the-middle';
import { resolveConfig } from './shared/config.js';
import { NO_ESM_HOOK_WARNING, esmLoaderHookActive } from './shared/esm-hook.js';
import type { LoggerProviderLike, ScopeLogger } from './shared/logs.js';
import { RateBudget } from './shared/rate-budget.js';
import { createInstruments, type McpInstruments } from './shared/metrics.js';
import { isRecord } from '@omcp/tool-failure/wire';
import { scopeLogger, scopeMeter, scopeTracer } from './shared/scope.js';
import type { ResolvedConfig, TelemetrySource } from './internal-types.js';
import { instrumentClientWith, instrumentServerWith } from './patches/instance.js';
import { FASTMCP_RANGE, patchFastMcp } from './patches/fastmcp.js';
import {
  patchClientConnect,
  patchMcpServer,
  patchProtocol,
  type Wrap,
} from './patches/protocol.js';
import {
  AI_SDK_MCP_OUTSIDE,
  AI_SDK_MCP_RANGE,
  aiSdkClientPrototype,
  aiSdkNotInstrumented,
  aiSdkSendMethod,
  patchAiSdkClient,
} from './patches/ai-sdk-client.js';
import { UnwrapGate } from './patches/unwrap-gate.js';
import { TMCP_RANGE, patchTmcpServer } from './patches/tmcp.js';
import type { McpInstrumentationConfig } from './types.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

/** Supported `@modelcontextprotocol/sdk` versions (one line, closed range). */
export const SDK_V1_RANGE = '>=1.10.2 <2';
/** Supported `@modelcontextprotocol/client` / `server` versions. */
export const SDK_V2_RANGE = '>=2.0.0 <3';

/**
 * The packages the module definitions hook, by name: the register entry limits OpenTelemetry's
 * ES module loader hook to these (`src/register/loader-hook.ts`).
 */
export const INSTRUMENTED_PACKAGES = {
  sdkV1: '@modelcontextprotocol/sdk',
  client: '@modelcontextprotocol/client',
  server: '@modelcontextprotocol/server',
  aiSdk: '@ai-sdk/mcp',
  fastmcp: 'fastmcp',
  tmcp: 'tmcp',
} as const;

const V1_PROTOCOL = {
  cjs: '@modelcontextprotocol/sdk/dist/cjs/shared/protocol',
  esm: '@modelcontextprotocol/sdk/dist/esm/shared/protocol.js',
};
const V1_MCP = {
  cjs: '@modelcontextprotocol/sdk/dist/cjs/server/mcp',
  esm: '@modelcontextprotocol/sdk/dist/esm/server/mcp.js',
};
const PROTOCOL_METHODS = ['connect', 'request', 'setRequestHandler'];
const MCP_SERVER_METHODS = ['tool', 'registerTool'];
const FASTMCP_SESSION_METHODS = ['setupToolHandlers'];
const TMCP_SERVER_METHODS = ['receive', 'tool'];

type ModuleExports = Record<string, unknown>;

/** The ES module loader hook is checked once per process (the first enable of the ESM build). */
let esmHookChecked = false;

/**
 * @internal The register entry imported and patched the MCP SDK's ES modules itself (Bun, Deno):
 * there is no loader hook to look for, and no warning to give about its absence.
 */
export function skipEsmHookCheck(): void {
  esmHookChecked = true;
}
/** Diagnostics said once per process, however many instances or module copies hit them. */
const said = new Set<string>();

/**
 * OpenTelemetry instrumentation for the MCP TypeScript SDK 1.x (`@modelcontextprotocol/sdk`)
 * and 2.x (`@modelcontextprotocol/client`, `@modelcontextprotocol/server`), and for the Vercel
 * AI SDK's own MCP client (`@ai-sdk/mcp` 2.x): client and server spans for every request, trace context in `params._meta`, classified tool failures whose
 * `correlationId` is the trace ID, and duration and failure metrics.
 */
export class McpInstrumentation extends InstrumentationBase<McpInstrumentationConfig> {
  // `declare`: the base constructor calls enable() before class fields would be initialised.
  declare private _instruments: McpInstruments | undefined;
  declare private _resolved: ResolvedConfig | undefined;
  declare private _requireHook: RequireHook | undefined;
  declare private _patched: Map<object, string[]> | undefined;
  declare private _off: boolean | undefined;
  declare private _source: TelemetrySource | undefined;
  declare private _scopeTracer: Tracer | undefined;
  declare private _scopeMeter: Meter | undefined;
  declare private _scopeLogger: ScopeLogger | undefined;
  declare private _budgets: { stacks: RateBudget; logs: RateBudget } | undefined;
  declare private _unwrapGate: UnwrapGate | undefined;

  constructor(config: McpInstrumentationConfig = {}) {
    super(PACKAGE_NAME, PACKAGE_VERSION, config);
  }

  // The base class's tracer, meter and logger carry no schemaUrl, and its logger comes from the
  // copy of the logs API that @opentelemetry/instrumentation was installed with: these come from
  // the application's API, with the scope's schemaUrl.
  protected override get tracer(): Tracer {
    return (this._scopeTracer ??= scopeTracer());
  }

  override setTracerProvider(tracerProvider: TracerProvider): void {
    super.setTracerProvider(tracerProvider);
    this._scopeTracer = scopeTracer(tracerProvider);
  }

  protected override get meter(): Meter {
    return (this._scopeMeter ??= scopeMeter());
  }

  override setMeterProvider(meterProvider: MeterProvider): void {
    this._scopeMeter = scopeMeter(meterProvider);
    super.setMeterProvider(meterProvider);
  }

  /** Log records go to `loggerProvider` from now on instead of the global provider. */
  override setLoggerProvider(loggerProvider: LoggerProviderLike): void {
    super.setLoggerProvider(
      loggerProvider as Parameters<InstrumentationBase['setLoggerProvider']>[0],
    );
    this._logs().setProvider(loggerProvider);
  }

  private _logs(): ScopeLogger {
    return (this._scopeLogger ??= scopeLogger((message) => this._diag.warn(message)));
  }

  override setConfig(config: McpInstrumentationConfig = {}): void {
    super.setConfig(config);
    this._resolved = undefined;
  }

  protected override _updateMetricInstruments(): void {
    this._instruments = createInstruments(this.meter);
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    // SDK 1.x: the ESM loader hook reaches its internal files through the package name. For
    // CommonJS, require-in-the-middle cannot resolve 1.x's broken root export, so enable()
    // adds a hook on the internal file names instead.
    const v1 = new InstrumentationNodeModuleDefinition(
      INSTRUMENTED_PACKAGES.sdkV1,
      [SDK_V1_RANGE],
      undefined,
      undefined,
      [
        new InstrumentationNodeModuleFile(
          V1_PROTOCOL.esm,
          [SDK_V1_RANGE],
          (m: ModuleExports) => this._patchV1Protocol(m),
          (m: ModuleExports) => this._unpatchExport(m, 'Protocol'),
        ),
        new InstrumentationNodeModuleFile(
          V1_MCP.esm,
          [SDK_V1_RANGE],
          (m: ModuleExports) => this._patchV1McpServer(m),
          (m: ModuleExports) => this._unpatchExport(m, 'McpServer'),
        ),
      ],
    );
    const v2 = [INSTRUMENTED_PACKAGES.client, INSTRUMENTED_PACKAGES.server].map(
      (name) =>
        new InstrumentationNodeModuleDefinition(
          name,
          [SDK_V2_RANGE],
          (m: ModuleExports) => this._patchV2(m),
          (m: ModuleExports) => this._unpatchV2(m),
        ),
    );
    // The AI SDK's client: a version outside the range is said once instead of passed over.
    const aiSdk = new InstrumentationNodeModuleDefinition(
      INSTRUMENTED_PACKAGES.aiSdk,
      [AI_SDK_MCP_RANGE],
      (m: ModuleExports, version?: string) => this._patchAiSdk(m, version),
      (m: ModuleExports) => this._unpatchAiSdk(m),
    );
    const aiSdkOther = new InstrumentationNodeModuleDefinition(
      INSTRUMENTED_PACKAGES.aiSdk,
      [AI_SDK_MCP_OUTSIDE],
      (m: ModuleExports, version?: string) => {
        this._warnOnce(aiSdkNotInstrumented(version, 'version'));
        return m;
      },
    );
    // Server frameworks beside the SDK: fastmcp (over SDK 1.x, whose tool errors it flattens
    // before the SDK sees them) and tmcp (its own MCP implementation).
    const fastmcp = new InstrumentationNodeModuleDefinition(
      INSTRUMENTED_PACKAGES.fastmcp,
      [FASTMCP_RANGE],
      (m: ModuleExports, version?: string) => this._patchFastMcp(m, version),
      (m: ModuleExports) => this._unpatchExport(m, 'FastMCPSession', FASTMCP_SESSION_METHODS),
    );
    const tmcp = new InstrumentationNodeModuleDefinition(
      INSTRUMENTED_PACKAGES.tmcp,
      [TMCP_RANGE],
      (m: ModuleExports, version?: string) => this._patchTmcp(m, version),
      (m: ModuleExports) => this._unpatchExport(m, 'McpServer', TMCP_SERVER_METHODS),
    );
    return [v1, ...v2, aiSdk, aiSdkOther, fastmcp, tmcp];
  }

  override enable(): void {
    super.enable();
    this._off = false;
    // Only the ES module build runs where `require` is not defined: its application imports,
    // and an import of the MCP SDK is patched only through the loader hook.
    if (!esmHookChecked && typeof require === 'undefined') {
      esmHookChecked = true;
      void esmLoaderHookActive().then(
        (active) => {
          if (active === false) this._diag.warn(NO_ESM_HOOK_WARNING);
        },
        () => undefined,
      );
    }
    if (this._requireHook === undefined) {
      this._requireHook = new RequireHook(
        [V1_PROTOCOL.cjs, V1_MCP.cjs],
        { internals: true },
        (exports, name) => {
          if (name === V1_PROTOCOL.cjs) this._patchV1Protocol(exports as ModuleExports);
          else this._patchV1McpServer(exports as ModuleExports);
          return exports;
        },
      );
    }
  }

  override disable(): void {
    super.disable();
    this._off = true;
    this._requireHook?.unhook();
    this._requireHook = undefined;
    this._gate().asOwner(() => {
      for (const [proto, names] of this._patched ?? []) {
        for (const name of names) {
          if (isWrapped((proto as Record<string, unknown>)[name]))
            this._unwrap(proto as Record<string, unknown>, name);
        }
      }
    });
    this._patched?.clear();
  }

  /**
   * Instruments one MCP client object (SDK 1.x or 2.x `Client`, or the client `@ai-sdk/mcp`'s
   * `createMCPClient` resolves to) without module hooks, for bundlers and code loaded before
   * the instrumentation. Returns the same object.
   */
  instrumentClient<T extends object>(client: T): T {
    return instrumentClientWith(this._telemetry(), client);
  }

  /**
   * Instruments one `McpServer` or low-level `Server` object (SDK 1.x or 2.x), or a tmcp
   * `McpServer`, without module hooks. Returns the same object.
   */
  instrumentServer<T extends object>(server: T): T {
    return instrumentServerWith(this._telemetry(), server);
  }

  /**
   * @internal Patches SDK modules that are already loaded (tests, and loaders that bypass the
   * module hooks). Takes the modules' exports: 1.x `shared/protocol.js` and `server/mcp.js`,
   * or a 2.x package.
   */
  _patchLoaded(modules: {
    v1Protocol?: object;
    v1Mcp?: object;
    v2?: object[];
    aiSdk?: { exports: object; version: string };
  }): void {
    if (modules.v1Protocol !== undefined)
      this._patchV1Protocol(modules.v1Protocol as ModuleExports);
    if (modules.v1Mcp !== undefined) this._patchV1McpServer(modules.v1Mcp as ModuleExports);
    for (const m of modules.v2 ?? []) this._patchV2(m as ModuleExports);
    if (modules.aiSdk !== undefined)
      this._patchAiSdk(modules.aiSdk.exports as ModuleExports, modules.aiSdk.version);
  }

  /** @internal What the patches read on every call. */
  _telemetry(): TelemetrySource {
    if (this._source === undefined) {
      this._source = {
        tracer: () => this.tracer,
        instruments: () => (this._instruments ??= createInstruments(this.meter)),
        logger: () => this._logs(),
        config: () =>
          (this._resolved ??= resolveConfig(this.getConfig(), process.env, (message) =>
            this._diag.warn(message),
          )),
        budgets: () => {
          const { stackTracesPerSecond: stacks, failureLogsPerSecond: logs } =
            this._telemetry().config();
          const b = this._budgets;
          if (b === undefined || b.stacks.perSecond !== stacks || b.logs.perSecond !== logs)
            this._budgets = {
              stacks: b?.stacks.perSecond === stacks ? b.stacks : new RateBudget(stacks),
              logs: b?.logs.perSecond === logs ? b.logs : new RateBudget(logs),
            };
          return this._budgets!;
        },
        active: () => this._off !== true,
        diag: this._diag,
      };
    }
    return this._source;
  }

  private _patchV1Protocol(exports: ModuleExports): ModuleExports {
    this._patchClassPrototype(exports.Protocol, PROTOCOL_METHODS, (proto, wrap) =>
      patchProtocol(proto, this._telemetry(), wrap),
    );
    return exports;
  }

  private _patchV1McpServer(exports: ModuleExports): ModuleExports {
    this._patchClassPrototype(exports.McpServer, MCP_SERVER_METHODS, (proto, wrap) =>
      patchMcpServer(proto, wrap),
    );
    return exports;
  }

  private _patchV2(exports: ModuleExports): ModuleExports {
    // 2.x bundles Protocol into each package (and each module format): reach it through the classes.
    for (const key of ['Client', 'Server']) {
      const cls = exports[key];
      if (typeof cls === 'function') {
        const proto: unknown = Object.getPrototypeOf((cls as { prototype: object }).prototype);
        if (isRecord(proto) && typeof proto.request === 'function') {
          this._patchPrototype(proto, PROTOCOL_METHODS, (p, wrap) =>
            patchProtocol(p, this._telemetry(), wrap),
          );
        }
      }
    }
    // Its Client's own connect sends the connect-time server/discover probe before Protocol's.
    const client = clientPrototypeOf(exports);
    if (client !== undefined)
      this._patchPrototype(client, ['connect'], (p, wrap) =>
        patchClientConnect(p, this._telemetry(), wrap),
      );
    this._patchClassPrototype(exports.McpServer, MCP_SERVER_METHODS, (proto, wrap) =>
      patchMcpServer(proto, wrap),
    );
    return exports;
  }

  private _patchFastMcp(exports: ModuleExports, version: string | undefined): ModuleExports {
    this._patchFramework('fastmcp', FASTMCP_RANGE, version, exports.FastMCPSession, {
      className: 'FastMCPSession',
      methods: FASTMCP_SESSION_METHODS,
      patch: (_proto, wrap) => patchFastMcp(exports, wrap),
      consequence: 'a UserError stays reliability/internal_error',
    });
    return exports;
  }

  private _patchTmcp(exports: ModuleExports, version: string | undefined): ModuleExports {
    this._patchFramework('tmcp', TMCP_RANGE, version, exports.McpServer, {
      className: 'McpServer',
      methods: TMCP_SERVER_METHODS,
      patch: (proto, wrap) => patchTmcpServer(proto, this._telemetry(), wrap),
      consequence: 'its requests get no server spans',
    });
    return exports;
  }

  /**
   * Patches the prototype of a server framework's class; a module of another shape than the
   * patch knows is said once, in one line, with what it means.
   */
  private _patchFramework(
    name: string,
    range: string,
    version: string | undefined,
    cls: unknown,
    how: {
      className: string;
      methods: string[];
      patch: (proto: object, wrap: Wrap) => string | undefined;
      consequence: string;
    },
  ): void {
    let problem: string | undefined =
      typeof cls === 'function' ? undefined : `exports no ${how.className}`;
    if (typeof cls === 'function')
      this._patchClassPrototype(cls, how.methods, (proto, wrap) => {
        problem = how.patch(proto, wrap);
      });
    if (problem !== undefined)
      this._diag.warn(
        `mcp: ${name} ${version ?? '(version unknown)'} ${problem}: ${how.consequence}. Supported: ${name} ${range}; please report this version.`,
      );
  }

  private _unpatchV2(exports: ModuleExports): void {
    for (const key of ['Client', 'Server']) {
      const cls = exports[key];
      if (typeof cls === 'function')
        this._unpatchPrototype(
          Object.getPrototypeOf((cls as { prototype: object }).prototype) as object,
          PROTOCOL_METHODS,
        );
    }
    const client = clientPrototypeOf(exports);
    if (client !== undefined) this._unpatchPrototype(client, ['connect']);
    this._unpatchExport(exports, 'McpServer');
  }

  private _patchAiSdk(exports: ModuleExports, version: string | undefined): ModuleExports {
    const proto = aiSdkClientPrototype(exports);
    const method = proto === undefined ? undefined : aiSdkSendMethod(proto);
    if (proto === undefined || method === undefined) {
      this._warnOnce(aiSdkNotInstrumented(version, 'api'));
      return exports;
    }
    this._patchPrototype(proto, [method], (p, wrap) => {
      patchAiSdkClient(p, this._telemetry(), wrap);
    });
    return exports;
  }

  private _unpatchAiSdk(exports: ModuleExports): void {
    const proto = aiSdkClientPrototype(exports);
    const method = proto === undefined ? undefined : aiSdkSendMethod(proto);
    if (proto !== undefined && method !== undefined) this._unpatchPrototype(proto, [method]);
  }

  private _warnOnce(message: string): void {
    if (said.has(message)) return;
    said.add(message);
    this._diag.warn(message);
  }

  private _unpatchExport(exports: ModuleExports, key: string, methods?: string[]): void {
    const cls = exports[key];
    if (typeof cls === 'function')
      this._unpatchPrototype(
        (cls as { prototype: object }).prototype,
        methods ?? (key === 'McpServer' ? MCP_SERVER_METHODS : PROTOCOL_METHODS),
      );
  }

  private _patchClassPrototype(
    cls: unknown,
    methods: string[],
    patch: (proto: object, wrap: Wrap) => void,
  ): void {
    if (typeof cls !== 'function') return;
    this._patchPrototype((cls as { prototype: object }).prototype, methods, patch);
  }

  private _patchPrototype(
    proto: object,
    methods: string[],
    patch: (proto: object, wrap: Wrap) => void,
  ): void {
    const record = proto as Record<string, unknown>;
    if (methods.some((m) => isWrapped(record[m]))) return;
    const wrap: Wrap = (target, name, wrapper) => {
      if (typeof (target as Record<string, unknown>)[name] !== 'function') return;
      this._wrap(target as Record<string, (...a: unknown[]) => unknown>, name, wrapper as never);
      this._gate().gate(target, name, (message) => this._diag.debug(message));
    };
    patch(proto, wrap);
    (this._patched ??= new Map()).set(proto, methods);
    this._diag.debug(`mcp: patched ${methods.join(', ')}`);
  }

  private _gate(): UnwrapGate {
    return (this._unwrapGate ??= new UnwrapGate());
  }

  private _unpatchPrototype(proto: object, methods: string[]): void {
    const record = proto as Record<string, unknown>;
    this._gate().asOwner(() => {
      for (const m of methods) if (isWrapped(record[m])) this._unwrap(record, m);
    });
    this._patched?.delete(proto);
  }
}

/** The prototype of a 2.x `Client` export that has its own `connect` (the one that probes). */
function clientPrototypeOf(exports: ModuleExports): object | undefined {
  const cls = exports.Client;
  if (typeof cls !== 'function') return undefined;
  const proto: unknown = (cls as { prototype?: unknown }).prototype;
  return isRecord(proto) && Object.hasOwn(proto, 'connect') ? proto : undefined;
}
