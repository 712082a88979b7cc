import { diag } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { McpInstrumentation } from '../instrumentation.js';
import type { McpInstrumentationConfig } from '../types.js';

/** Options read from the environment, besides the SDK's own `OTEL_*` variables. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): McpInstrumentationConfig {
  const config: McpInstrumentationConfig = {};
  const flag = (name: string, apply: (value: boolean) => void): void => {
    const raw = env[name];
    if (raw === undefined || raw === '') return;
    const v = raw.trim().toLowerCase();
    if (v === 'true') apply(true);
    else if (v === 'false') apply(false);
    else warn(`${name}=${raw} is not true or false; using the default`);
  };
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
  return config;
}

let started: NodeSDK | undefined;

/** One line on stderr: configuration mistakes must be visible without any diag logger set up. */
function warn(message: string): void {
  process.stderr.write(`@omcp/instrumentation-mcp: ${message}\n`);
}

/**
 * Starts an OpenTelemetry NodeSDK configured from the standard `OTEL_*` variables (OTLP
 * traces, metrics and logs by default) with `McpInstrumentation` enabled, and flushes it when
 * the process ends normally or on SIGTERM / SIGINT. Used by the `register` entry points.
 */
export function startTelemetry(): NodeSDK | undefined {
  if (started !== undefined) return started;
  if (process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const sdk = new NodeSDK({ instrumentations: [new McpInstrumentation(configFromEnv())] });
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
