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
function versionOf(file: string, name: string): string | undefined {
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

/**
 * The `@opentelemetry/sdk-node` the application uses: the one its own folder (the working
 * directory) resolves first, else the one this package resolves (its optional dependency, which
 * npm picks for the running Node: 0.2xx on Node 20, 0.3xx on 22.15 and later). Exporters come
 * from sdk-node's own dependencies, so they are always of its line.
 */
export function loadSdk(from: readonly string[] = []): SdkLine {
  const bases = [join(process.cwd(), 'package.json'), ...from];
  for (const base of bases) {
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
    const { NodeSDK: Sdk } = sdkRequire(SDK_NODE) as { NodeSDK: typeof NodeSDK };
    return {
      NodeSDK: Sdk,
      version,
      line: /^0\.2\d\d\./.test(version) ? '2.x' : /^0\.3\d\d\./.test(version) ? '3.x' : version,
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

/** Whether `apiVersion` fits the line: 3.x needs `@opentelemetry/api` 1.10, 2.x takes 1.9 too. */
function apiFits(sdk: SdkLine): boolean {
  if (sdk.line !== '3.x' || sdk.apiVersion === undefined) return true;
  const [major, minor] = sdk.apiVersion.split('.').map(Number);
  return major === 1 && (minor ?? 0) >= 10;
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
 * ({@link traceExporterFromEnv}).
 */
export function startTelemetry(
  from: readonly string[] = [],
  speaker: string = ENTRY,
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
    if (!(error instanceof SdkMissingError)) throw error;
    new McpInstrumentation(configFromEnv());
    notice(
      `${SDK_NODE} is not installed (npm install --omit=optional leaves it out): no spans, metrics or log records are exported; tool failures still get their failure objects. To export them: npm install ${SDK_NODE}`,
    );
    return undefined;
  }
  if (!apiFits(sdkLine)) {
    new McpInstrumentation(configFromEnv());
    notice(
      `telemetry not started: ${SDK_NODE} ${sdkLine.version} (OpenTelemetry JS 3.x) needs @opentelemetry/api 1.10, found ${sdkLine.apiVersion}; install @opentelemetry/api@1.10, or ${SDK_NODE}@0.223 for the 2.x line`,
    );
    return undefined;
  }
  const traceExporter = traceExporterFromEnv(process.env, sdkLine);
  const guard = new ExitGuard(sdkLine.load, process.env, traceExporter, undefined, notice);
  const sdk = new sdkLine.NodeSDK({
    instrumentations: [new McpInstrumentation(configFromEnv())],
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
