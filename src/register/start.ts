import { diag } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { McpInstrumentation } from '../instrumentation.js';
import type { McpInstrumentationConfig } from '../types.js';

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
    read(
      name,
      (v) => (v === 'true' ? true : v === 'false' ? false : undefined),
      'true or false',
      apply,
    );
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
  flag(
    'OTEL_INSTRUMENTATION_MCP_REDACT_THROWN_ERROR_TEXT',
    (v) => (config.redactThrownErrorText = v),
  );
  flag(
    'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
    (v) => (config.captureToolPayloads = v),
  );
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

/**
 * The OTLP trace exporter NodeSDK would build from `env`, with `concurrencyLimit` set by
 * {@link traceExportConcurrency} (no `OTEL_*` variable sets it); every other option is still
 * read from `OTEL_EXPORTER_OTLP_*` by the exporter. `undefined` where NodeSDK would choose
 * anything else (other or several exporters, `none`, an unknown protocol): it then decides.
 */
export function traceExporterFromEnv(
  env: NodeJS.ProcessEnv = process.env,
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
  const options = { concurrencyLimit: traceExportConcurrency(env) };
  switch (protocol) {
    case 'http/protobuf':
      return new ProtobufTraceExporter(options);
    case 'http/json':
      return new JsonTraceExporter(options);
    case 'grpc':
      return new GrpcTraceExporter(options);
    default:
      return undefined;
  }
}

let started: NodeSDK | undefined;

/** One line on stderr: configuration mistakes must be visible without any diag logger set up. */
function warn(message: string): void {
  process.stderr.write(`@omcp/instrumentation-mcp: ${message}\n`);
}

/**
 * Starts an OpenTelemetry NodeSDK configured from the standard `OTEL_*` variables (OTLP
 * traces, metrics and logs by default) with `McpInstrumentation` enabled, and flushes it when
 * the process ends normally or on SIGTERM / SIGINT. Used by the `register` entry points. The
 * OTLP trace exporter gets a concurrency limit ({@link traceExporterFromEnv}).
 */
export function startTelemetry(): NodeSDK | undefined {
  if (started !== undefined) return started;
  if (process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const traceExporter = traceExporterFromEnv();
  const sdk = new NodeSDK({
    instrumentations: [new McpInstrumentation(configFromEnv())],
    ...(traceExporter === undefined ? {} : { traceExporter }),
  });
  sdk.start();
  started = sdk;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= sdk
      .shutdown()
      .catch((err: unknown) => diag.error('mcp: telemetry shutdown failed', err)));
  process.once('beforeExit', () => void stop());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void stop().finally(() => {
        // Other listeners own the exit; with none left, end the way the signal would have.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
  return sdk;
}
