import type { ResolvedConfig } from '../internal-types.js';
import { TOOL_FAILURE_META_KEY } from '../tool-failure/constants.js';
import type { McpInstrumentationConfig } from '../types.js';
import { RateBudget } from './rate-budget.js';

/** Applies defaults; tolerates nonsense values by falling back to the default. */
export function resolveConfig(
  config: McpInstrumentationConfig,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedConfig {
  const envCapture =
    env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true';
  const max = config.maxAttributeLength;
  return {
    ...config,
    captureToolPayloads:
      typeof config.captureToolPayloads === 'boolean' ? config.captureToolPayloads : envCapture,
    addFailureObjects: config.addFailureObjects !== false,
    trustIncomingContext: config.trustIncomingContext !== false,
    propagateContext: config.propagateContext !== false,
    metaKey:
      typeof config.metaKey === 'string' && config.metaKey.length > 0
        ? config.metaKey
        : TOOL_FAILURE_META_KEY,
    metricCodes: new Set(
      Array.isArray(config.metricCodeAllowList)
        ? config.metricCodeAllowList.filter((c) => typeof c === 'string')
        : [],
    ),
    maxAttributeLength: typeof max === 'number' && Number.isInteger(max) && max >= 16 ? max : 256,
    emitFailureLogs: config.emitFailureLogs !== false,
    exceptionSpanEvents:
      config.emitFailureLogs === false ||
      exceptionSignalOf(config.exceptionSignal, env) === 'logs/dup',
    redactThrownErrorText: config.redactThrownErrorText === true,
    stackBudget: new RateBudget(rateOf(config.maxStackTracesPerSecond)),
    logBudget: new RateBudget(rateOf(config.maxFailureLogsPerSecond)),
  };
}

/**
 * Stack traces per second per tool and exception type, and failure log records per second per
 * tool, failure code and exception type: anything but a number >= 0 gives 10.
 */
export const DEFAULT_RATE_PER_SECOND = 10;

function rateOf(value: unknown): number {
  return typeof value === 'number' && value >= 0 ? value : DEFAULT_RATE_PER_SECOND;
}

/** Where exceptions go: an explicit `'logs'`/`'logs/dup'`, else the conventions' opt-in variable. */
export function exceptionSignalOf(
  explicit: unknown,
  env: NodeJS.ProcessEnv = process.env,
): 'logs' | 'logs/dup' {
  if (explicit === 'logs' || explicit === 'logs/dup') return explicit;
  // The conventions' opt-in variable may list several values, comma-separated.
  const values = (env.OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN ?? '').split(',').map((v) => v.trim());
  return values.includes('logs/dup') ? 'logs/dup' : 'logs';
}
