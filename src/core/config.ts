import type { ResolvedConfig } from '../internal-types.js';
import { TOOL_FAILURE_META_KEY } from '../tool-failure/constants.js';
import type { McpInstrumentationConfig } from '../types.js';
import { RateBudget } from './rate-budget.js';

/**
 * Applies defaults; a value of the wrong type or range falls back to the default, and `warn`
 * (the instrumentation's diagnostic logger) is told which option was ignored and why.
 */
export function resolveConfig(
  config: McpInstrumentationConfig,
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => {},
): ResolvedConfig {
  const envCapture =
    env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true';
  const ignored = (option: string, why: string, fallback: string): void =>
    warn(
      `mcp: option ${option} ${why} (got ${shown(config[option as keyof McpInstrumentationConfig])}); using ${fallback}`,
    );
  const max = config.maxAttributeLength;
  if (max !== undefined && !(typeof max === 'number' && Number.isInteger(max) && max >= 16))
    ignored('maxAttributeLength', 'must be an integer >= 16', '256');
  for (const option of ['maxStackTracesPerSecond', 'maxFailureLogsPerSecond'] as const) {
    const v = config[option];
    if (v !== undefined && !(typeof v === 'number' && v >= 0))
      ignored(
        option,
        'must be a number >= 0 (Infinity for no limit)',
        String(DEFAULT_RATE_PER_SECOND),
      );
  }
  if (
    config.metaKey !== undefined &&
    !(typeof config.metaKey === 'string' && config.metaKey.length > 0)
  )
    ignored('metaKey', 'must be a non-empty string', TOOL_FAILURE_META_KEY);
  if (
    config.exceptionSignal !== undefined &&
    config.exceptionSignal !== 'logs' &&
    config.exceptionSignal !== 'logs/dup'
  )
    ignored('exceptionSignal', "must be 'logs' or 'logs/dup'", 'the default');
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

export function rateOf(value: unknown): number {
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

/** A value as a warning shows it: its type and, for short scalars, the value. */
function shown(value: unknown): string {
  if (typeof value === 'string') return value.length <= 32 ? `'${value}'` : 'a long string';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
