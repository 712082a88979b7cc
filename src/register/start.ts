import type { NodeSDK, NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { McpInstrumentation } from '../instrumentation.js';
import { ExitGuard, type LineLoader } from './exit-guard.js';
import { ExitHandlers, exitFlushTimeoutMs } from './shutdown.js';
import { loadClassificationRules } from '@omcp/tool-failure';
import { CAPTURE_MESSAGE_CONTENT_ENV, parseEnvFlag } from '../shared/config.js';
import type { McpInstrumentationConfig } from '../types.js';
import { onLoaderThread } from './loader-thread.js';
import { requireSelectedOnUse } from './lazy-parts.js';

/** Options read from the environment, besides the SDK's own `OTEL_*` variables. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): McpInstrumentationConfig {
  const config: McpInstrumentationConfig = {};
  /** Reads one variable: unset or blank is absent; a value `parse` rejects is reported. */
  const read = <T>(
    name: string,
    parse: (value: string) => T | undefined,
    expected: string,
    apply: (value: T) => void,
  ): void => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return;
    const value = parse(raw.trim().toLowerCase());
    if (value !== undefined) apply(value);
    else warn(`${name}=${raw} is not ${expected}; using the default`);
  };
  const flag = (name: string, apply: (value: boolean) => void): void =>
    read(name, parseEnvFlag, 'true or false', apply);
  const rate = (name: string, apply: (value: number) => void): void =>
    read(
      name,
      (v) => {
        const n = v === 'infinity' ? Infinity : Number(v);
        return n >= 0 ? n : undefined;
      },
      'a number >= 0 or infinity',
      apply,
    );
  flag('OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT', (v) => (config.trustIncomingContext = v));
  flag('OTEL_INSTRUMENTATION_MCP_ADD_FAILURE_OBJECTS', (v) => (config.addFailureObjects = v));
  flag('OTEL_INSTRUMENTATION_MCP_PROPAGATE_CONTEXT', (v) => (config.propagateContext = v));
  flag('OTEL_INSTRUMENTATION_MCP_DECLARE_EXTENSION', (v) => (config.declareExtension = v));
  flag(
    'OTEL_INSTRUMENTATION_MCP_REDACT_THROWN_ERROR_TEXT',
    (v) => (config.redactThrownErrorText = v),
  );
  flag('OTEL_INSTRUMENTATION_MCP_RULE_PACKS', (v) => (config.builtInRulePacks = v));
  flag('OTEL_INSTRUMENTATION_MCP_TOOL_RESULT_OUTPUTS', (v) => (config.toolResultOutputs = v));
  flag(CAPTURE_MESSAGE_CONTENT_ENV, (v) => (config.captureToolPayloads = v));
  const rules = env.OTEL_INSTRUMENTATION_MCP_CLASSIFICATION_RULES?.trim();
  if (rules !== undefined && rules !== '') {
    // Checked now, so a bad rule is said at start (one line each), never at the first failure.
    for (const problem of loadClassificationRules(rules).problems) warn(problem);
    config.classificationRules = rules;
  }
  rate(
    'OTEL_INSTRUMENTATION_MCP_MAX_FAILURE_LOGS_PER_SECOND',
    (n) => (config.maxFailureLogsPerSecond = n),
  );
  rate(
    'OTEL_INSTRUMENTATION_MCP_MAX_STACK_TRACES_PER_SECOND',
    (n) => (config.maxStackTracesPerSecond = n),
  );
  return config;
}

/** An `OTEL_*` string as the SDK reads it: unset, empty and blank are all absent. */
function envString(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

/** A positive number from `OTEL_*`, as the SDK's BatchSpanProcessor settings read it. */
function envPositive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = envString(env, name);
  const value = raw === undefined ? NaN : Number(raw);
  return value > 0 ? value : undefined;
}

/**
 * The trace exporter's concurrency limit for the batch settings in `env`: every batch a
 * `forceFlush` (or shutdown) of a full queue hands over at once, plus the one already in flight.
 * The exporter's default of 30 only matters while the collector is unreachable, where each
 * export it accepts keeps its batch (spans and request) for its retries (about 10 s).
 */
export function traceExportConcurrency(env: NodeJS.ProcessEnv = process.env): number {
  const queue = envPositive(env, 'OTEL_BSP_MAX_QUEUE_SIZE') ?? 2048;
  const batch = Math.min(envPositive(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? 512, queue);
  return Math.ceil(queue / batch) + 1;
}

type TraceExporterClass = new (options: {
  concurrencyLimit: number;
}) => NonNullable<NodeSDKConfiguration['traceExporter']>;

/** What the zero-code entry takes from the application's OpenTelemetry JS line. */
export interface SdkLine {
  NodeSDK: typeof NodeSDK;
  /** `@opentelemetry/sdk-node`'s version, e.g. `0.301.0`. */
  version: string;
  /** `2.x` (sdk-node 0.2xx) or `3.x` (0.3xx). */
  line: string;
  /** `@opentelemetry/api`'s version as sdk-node resolves it, when it can be read. */
  apiVersion: string | undefined;
  /** The OTLP trace exporter of a protocol, from the copy sdk-node itself uses. */
  traceExporter(protocol: 'http/protobuf' | 'http/json' | 'grpc'): TraceExporterClass;
  /** A package as sdk-node resolves it, or as its dependency `via` does. */
  load: LineLoader;
}

/** Thrown by {@link loadSdk} when `@opentelemetry/sdk-node` cannot be resolved from anywhere. */
export class SdkMissingError extends Error {}

const SDK_NODE = '@opentelemetry/sdk-node';
const TRACE_EXPORTERS = {
  'http/protobuf': '@opentelemetry/exporter-trace-otlp-proto',
  'http/json': '@opentelemetry/exporter-trace-otlp-http',
  grpc: '@opentelemetry/exporter-trace-otlp-grpc',
} as const;

/** The version in the package.json of the package `name` that `file` belongs to. */
export function versionOf(file: string, name: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
          name?: unknown;
          version?: unknown;
        };
        if (json.name === name && typeof json.version === 'string') return json.version;
      } catch {
        // not a manifest we can read: keep walking up
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Thrown by {@link loadSdk} when the sdk-node found and the `@opentelemetry/api` are of two lines. */
export class LineMismatchError extends Error {}

/** Where the application resolves packages from: its folder (the working directory) first. */
function basesOf(from: readonly string[]): string[] {
  return [join(process.cwd(), 'package.json'), ...from];
}

/** The OpenTelemetry JS line an `@opentelemetry/api` version belongs to: 1.10 is 3.x's. */
export function lineOfApi(apiVersion: string): '2.x' | '3.x' {
  const [major, minor] = apiVersion.split('.').map(Number);
  return major === 1 && (minor ?? 0) < 10 ? '2.x' : '3.x';
}

/** What to install for a line's zero-code entry, and its `@opentelemetry/api`. */
const LINE_PACKAGES = {
  '2.x': { sdkNode: `${SDK_NODE}@0.223`, api: '@opentelemetry/api@1.9' },
  '3.x': { sdkNode: `${SDK_NODE}@0.301`, api: '@opentelemetry/api@1.10' },
} as const;

/** The `@opentelemetry/api` version the application resolves first, when it can be read. */
export function applicationApiVersion(from: readonly string[] = []): string | undefined {
  for (const base of basesOf(from)) {
    try {
      return versionOf(createRequire(base).resolve('@opentelemetry/api'), '@opentelemetry/api');
    } catch {
      // not resolvable from here: try the next base
    }
  }
  return undefined;
}

/**
 * Says why an sdk-node and an api of two lines cannot start, with the command that fixes it, or
 * `undefined` when they pair: 3.x (sdk-node 0.3xx) needs api 1.10; 2.x takes 1.9 (and 1.10).
 */
export function lineMismatch(
  sdkVersion: string,
  line: string,
  apiVersion: string | undefined,
): string | undefined {
  if (line !== '3.x' || apiVersion === undefined || lineOfApi(apiVersion) === '3.x')
    return undefined;
  return `${SDK_NODE} ${sdkVersion} (OpenTelemetry JS 3.x) needs @opentelemetry/api 1.10, found ${apiVersion} (2.x); to run the 3.x line: npm install ${LINE_PACKAGES['3.x'].api}; to stay on 2.x: npm install ${LINE_PACKAGES['2.x'].sdkNode}`;
}

/**
 * The `@opentelemetry/sdk-node` the application uses: the one its own folder (the working
 * directory) resolves first, else one the entry's own location resolves (where the application
 * installed it beside this package). Exporters come from sdk-node's own
 * dependencies, so they are always of its line. Throws {@link LineMismatchError} before loading
 * an sdk-node whose line the `@opentelemetry/api` does not fit (loading it would throw).
 */
export function loadSdk(from: readonly string[] = []): SdkLine {
  for (const base of basesOf(from)) {
    const req = createRequire(base);
    let path: string;
    try {
      path = req.resolve(SDK_NODE);
    } catch {
      continue;
    }
    const sdkRequire = createRequire(path);
    const version = versionOf(path, SDK_NODE) ?? 'unknown';
    let apiVersion: string | undefined;
    try {
      apiVersion = versionOf(sdkRequire.resolve('@opentelemetry/api'), '@opentelemetry/api');
    } catch {
      apiVersion = undefined;
    }
    const line = /^0\.2\d\d\./.test(version)
      ? '2.x'
      : /^0\.3\d\d\./.test(version)
        ? '3.x'
        : version;
    const mismatch = lineMismatch(version, line, apiVersion);
    if (mismatch !== undefined) throw new LineMismatchError(mismatch);
    // Its exporters and propagators load when NodeSDK builds one (what OTEL_* selects), not all.
    const { NodeSDK: Sdk } = requireSelectedOnUse(sdkRequire, SDK_NODE, path) as {
      NodeSDK: typeof NodeSDK;
    };
    return {
      NodeSDK: Sdk,
      version,
      line,
      apiVersion,
      traceExporter: (protocol) =>
        (sdkRequire(TRACE_EXPORTERS[protocol]) as { OTLPTraceExporter: TraceExporterClass })
          .OTLPTraceExporter,
      load: (name, via) =>
        via === undefined
          ? (sdkRequire(name) as unknown)
          : (createRequire(sdkRequire.resolve(via))(name) as unknown),
    };
  }
  throw new SdkMissingError(`${SDK_NODE} is not installed`);
}

/** What the zero-code entry takes from an application with a tracer SDK and no sdk-node. */
export interface TracesOnlyLine {
  /** `@opentelemetry/sdk-trace-node`'s version. */
  version: string;
  NodeTracerProvider: new (config: {
    spanProcessors: NonNullable<NodeSDKConfiguration['spanProcessors']>;
  }) => { register(): void; shutdown(): Promise<void> };
  BatchSpanProcessor: new (
    exporter: NonNullable<NodeSDKConfiguration['traceExporter']>,
  ) => NonNullable<NodeSDKConfiguration['spanProcessors']>[number];
  /** The application's OTLP trace exporter package for the protocol, and a loader beside it. */
  exporter: { name: string; Exporter: TraceExporterClass; load: LineLoader } | undefined;
}

const SDK_TRACE_NODE = '@opentelemetry/sdk-trace-node';

/**
 * The design card's stack, where the application has no sdk-node: its
 * `@opentelemetry/sdk-trace-node` (the 2.x line) and the OTLP trace exporter it installed, for
 * the protocol `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` names, else the first installed of
 * protobuf, JSON and gRPC. `undefined` when there is no sdk-trace-node.
 */
export function loadTracesOnly(
  from: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): TracesOnlyLine | undefined {
  const resolveFrom = (name: string): string | undefined => {
    for (const base of basesOf(from)) {
      try {
        return createRequire(base).resolve(name);
      } catch {
        // next base
      }
    }
    return undefined;
  };
  const path = resolveFrom(SDK_TRACE_NODE);
  if (path === undefined) return undefined;
  const trace = createRequire(path)(SDK_TRACE_NODE) as Pick<
    TracesOnlyLine,
    'NodeTracerProvider' | 'BatchSpanProcessor'
  >;
  const wanted =
    envString(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    envString(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  const protocols = (
    wanted === undefined ? ['http/protobuf', 'http/json', 'grpc'] : [wanted]
  ).filter((p): p is keyof typeof TRACE_EXPORTERS => p in TRACE_EXPORTERS);
  let exporter: TracesOnlyLine['exporter'];
  for (const protocol of protocols) {
    const name = TRACE_EXPORTERS[protocol];
    const at = resolveFrom(name);
    if (at === undefined) continue;
    const req = createRequire(at);
    exporter = {
      name,
      Exporter: (req(name) as { OTLPTraceExporter: TraceExporterClass }).OTLPTraceExporter,
      load: (dep, via) =>
        via === undefined
          ? (req(dep) as unknown)
          : (createRequire(req.resolve(via))(dep) as unknown),
    };
    break;
  }
  return {
    version: versionOf(path, SDK_TRACE_NODE) ?? 'unknown',
    NodeTracerProvider: trace.NodeTracerProvider,
    BatchSpanProcessor: trace.BatchSpanProcessor,
    exporter,
  };
}

/**
 * The OTLP trace exporter NodeSDK would build from `env`, with `concurrencyLimit` set by
 * {@link traceExportConcurrency} (no `OTEL_*` variable sets it); every other option is still
 * read from `OTEL_EXPORTER_OTLP_*` by the exporter. `undefined` where NodeSDK would choose
 * anything else (other or several exporters, `none`, an unknown protocol): it then decides.
 */
export function traceExporterFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  sdk: Pick<SdkLine, 'traceExporter'> = loadSdk(),
): NodeSDKConfiguration['traceExporter'] | undefined {
  const names = [
    ...new Set(
      envString(env, 'OTEL_TRACES_EXPORTER')
        ?.split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '' && v !== 'null'),
    ),
  ];
  if (names.length > 1 || (names.length === 1 && names[0] !== 'otlp')) return undefined;
  const protocol =
    envString(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    envString(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json' && protocol !== 'grpc')
    return undefined;
  const Exporter = sdk.traceExporter(protocol);
  return new Exporter({ concurrencyLimit: traceExportConcurrency(env) });
}

let started: NodeSDK | undefined;

/** One line on stderr: configuration mistakes must be visible without any diag logger set up. */
export function warn(message: string): void {
  process.stderr.write(`@omcp/instrumentation-mcp: ${message}\n`);
}

/** Who says what the zero-code entry did: the entry itself unless a CLI starts it. */
const ENTRY = '@omcp/instrumentation-mcp/register';

/** MCP SDK modules imported before the start, patched as they are (runtimes without loader hooks). */
export type LoadedModules = Parameters<McpInstrumentation['_patchLoaded']>[0];

/** The entry's instrumentation, with the modules `loaded` holds already patched. */
function mcpInstrumentation(loaded: LoadedModules | undefined): McpInstrumentation {
  const instrumentation = new McpInstrumentation(configFromEnv());
  if (loaded !== undefined) instrumentation._patchLoaded(loaded);
  return instrumentation;
}

/**
 * Starts an OpenTelemetry NodeSDK configured from the standard `OTEL_*` variables (OTLP
 * traces, metrics and logs by default) with `McpInstrumentation` enabled, and flushes it when
 * the process ends normally or on SIGTERM / SIGINT, and through a synchronous last resort when it
 * exits before that ({@link ExitHandlers}, {@link ExitGuard}). Used by the `register` entry points, which
 * pass their own path in `from` (where this package's optional sdk-node resolves). Says in one
 * line on stderr, as `speaker`, which OpenTelemetry JS line it started. Without sdk-node, the instrumentation
 * still runs (a thrown `ToolFailureError` still becomes its failure object), nothing is
 * exported, and one line says so. The OTLP trace exporter gets a concurrency limit
 * ({@link traceExporterFromEnv}). `loaded`: MCP SDK modules already imported, patched in place
 * (where no module hook will see them load).
 */
export function startTelemetry(
  from: readonly string[] = [],
  speaker: string = ENTRY,
  loaded?: LoadedModules,
): NodeSDK | undefined {
  const notice = (message: string): void => {
    process.stderr.write(`${speaker}: ${message}\n`);
  };
  if (started !== undefined) return started;
  if (onLoaderThread()) return undefined;
  if (process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  let sdkLine: SdkLine;
  try {
    sdkLine = loadSdk(from);
  } catch (error) {
    if (error instanceof LineMismatchError) {
      mcpInstrumentation(loaded);
      notice(`telemetry not started: ${error.message}`);
      return undefined;
    }
    if (!(error instanceof SdkMissingError)) throw error;
    const traces = loadTracesOnly(from);
    if (traces !== undefined) return startTracesOnly(traces, notice, loaded);
    mcpInstrumentation(loaded);
    const api = applicationApiVersion(from);
    const install = LINE_PACKAGES[api === undefined ? '3.x' : lineOfApi(api)].sdkNode;
    notice(
      `no OpenTelemetry SDK is installed (neither ${SDK_NODE} nor ${SDK_TRACE_NODE}): no spans, metrics or log records are exported; tool failures still get their failure objects. To export them, for @opentelemetry/api ${api ?? 'unknown'}: npm install ${install}`,
    );
    return undefined;
  }
  const traceExporter = traceExporterFromEnv(process.env, sdkLine);
  const guard = new ExitGuard(sdkLine.load, process.env, traceExporter, undefined, notice);
  const sdk = new sdkLine.NodeSDK({
    instrumentations: [mcpInstrumentation(loaded)],
    // The guard's span processors carry the exporter; without them NodeSDK batches it itself.
    ...(traceExporter === undefined || guard.config.spanProcessors !== undefined
      ? {}
      : { traceExporter }),
    ...guard.config,
  });
  sdk.start();
  started = sdk;
  notice(
    `OpenTelemetry JS ${sdkLine.line} started (sdk-node ${sdkLine.version}, api ${sdkLine.apiVersion ?? 'unknown'})`,
  );
  new ExitHandlers(
    {
      shutdown: () => sdk.shutdown(),
      flushSync: () => guard.flushSync(),
      stopping: () => guard.stopping(),
      report: (abandonedAfterMs) => guard.report(abandonedAfterMs),
      notice,
    },
    process,
    exitFlushTimeoutMs(process.env, warn),
  );
  return sdk;
}

/**
 * The zero-code entry on the design card's stack (the application's sdk-trace-node and OTLP trace
 * exporter, no sdk-node): spans only, batched and flushed at exit as with sdk-node; one line says
 * what started, and that metrics and log records need sdk-node.
 */
function startTracesOnly(
  traces: TracesOnlyLine,
  notice: (message: string) => void,
  loaded: LoadedModules | undefined,
): undefined {
  const { exporter } = traces;
  if (exporter === undefined) {
    mcpInstrumentation(loaded);
    notice(
      `telemetry not started: ${SDK_TRACE_NODE} ${traces.version} is installed, but no OTLP trace exporter for the protocol; npm install ${TRACE_EXPORTERS['http/protobuf']}, or set OTEL_EXPORTER_OTLP_PROTOCOL to the exporter installed`,
    );
    return undefined;
  }
  const traceExporter = new exporter.Exporter({
    concurrencyLimit: traceExportConcurrency(process.env),
  });
  const guard = new ExitGuard(exporter.load, process.env, traceExporter);
  const provider = new traces.NodeTracerProvider({
    spanProcessors: guard.config.spanProcessors ?? [new traces.BatchSpanProcessor(traceExporter)],
  });
  provider.register();
  mcpInstrumentation(loaded);
  notice(
    `OpenTelemetry JS 2.x started, traces only (${SDK_TRACE_NODE} ${traces.version}, ${exporter.name}); for metrics and log records too: npm install ${LINE_PACKAGES['2.x'].sdkNode}`,
  );
  new ExitHandlers({
    shutdown: () => provider.shutdown(),
    flushSync: () => guard.flushSync(),
    notice,
  });
  return undefined;
}
