import type { ResolvedConfig } from '../internal-types.js';
import { TOOL_FAILURE_META_KEY } from '@omcp/tool-failure';
import type { McpInstrumentationConfig } from '../types.js';
import {
  compileClassificationRules,
  loadClassificationRules,
  type ClassificationRules,
} from '@omcp/tool-failure';

/**
 * Applies defaults; a value of the wrong type or range falls back to the default, and `warn`
 * (the instrumentation's diagnostic logger) is told which option was ignored and why.
 */
export function resolveConfig(
  config: McpInstrumentationConfig,
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => {},
): ResolvedConfig {
  const envCapture = parseEnvFlag(env[CAPTURE_MESSAGE_CONTENT_ENV] ?? '') ?? false;
  /** The option's value when `valid`, else its default (and a warning when one was given). */
  const checked = <K extends keyof McpInstrumentationConfig, T>(
    option: K,
    valid: (value: unknown) => value is T,
    rule: string,
    fallback: T,
  ): T => {
    const value = config[option];
    if (valid(value)) return value;
    if (value !== undefined)
      warn(
        `mcp: option ${option} ${rule} (got ${shown(value)}); using ${fallback === undefined ? 'the default' : String(fallback)}`,
      );
    return fallback;
  };
  const isFlag = (v: unknown): v is boolean => typeof v === 'boolean';
  const flag = (option: FlagOption, fallback: boolean): boolean =>
    checked(option, isFlag, 'must be true or false', fallback);
  const fn = <K extends 'requestHook' | 'responseHook' | 'errorClassifier'>(
    option: K,
  ): McpInstrumentationConfig[K] =>
    checked(
      option,
      (v): v is McpInstrumentationConfig[K] => typeof v === 'function',
      'must be a function',
      undefined,
    );
  const rule = 'must be a number >= 0 (Infinity for no limit)';
  const maxStackTraces = checked('maxStackTracesPerSecond', isRate, rule, DEFAULT_RATE_PER_SECOND);
  const maxFailureLogs = checked('maxFailureLogsPerSecond', isRate, rule, DEFAULT_RATE_PER_SECOND);
  // Not set is fine here: the conventions' opt-in variable decides then.
  const signal = checked(
    'exceptionSignal',
    isExceptionSignal,
    "must be 'logs' or 'logs/dup'",
    undefined,
  );
  const codes = checked('metricCodeAllowList', Array.isArray, 'must be an array of strings', []);
  const metricCodes = codes.filter((c): c is string => typeof c === 'string');
  if (metricCodes.length < codes.length)
    warn(
      `mcp: option metricCodeAllowList must be an array of strings (got ${codes.length - metricCodes.length} other entries); using the strings`,
    );
  const emitFailureLogs = flag('emitFailureLogs', true);
  return {
    ...config,
    requestHook: fn('requestHook'),
    responseHook: fn('responseHook'),
    errorClassifier: fn('errorClassifier'),
    captureToolPayloads: flag('captureToolPayloads', envCapture),
    addFailureObjects: flag('addFailureObjects', true),
    declareExtension: flag('declareExtension', true),
    trustIncomingContext: flag('trustIncomingContext', true),
    propagateContext: flag('propagateContext', true),
    metaKey: checked('metaKey', isMetaKey, 'must be a non-empty string', TOOL_FAILURE_META_KEY),
    metricCodes: new Set(metricCodes),
    maxAttributeLength: checked(
      'maxAttributeLength',
      (v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 16,
      'must be an integer >= 16',
      256,
    ),
    emitFailureLogs,
    exceptionSpanEvents: !emitFailureLogs || exceptionSignalOf(signal, env) === 'logs/dup',
    redactThrownErrorText: flag('redactThrownErrorText', false),
    rules: rulesOf(config.classificationRules, warn),
    builtInRulePacks: flag('builtInRulePacks', true),
    toolResultOutputs: flag('toolResultOutputs', false),
    stackTracesPerSecond: maxStackTraces,
    failureLogsPerSecond: maxFailureLogs,
  };
}

/** The conventions' variable that turns payload capture on (`captureToolPayloads`). */
export const CAPTURE_MESSAGE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/**
 * A switch from the environment, read the one way every entry reads it: `true` or `false` in
 * any case, blanks around ignored; anything else (blank included) is `undefined`.
 */
export function parseEnvFlag(raw: string): boolean | undefined {
  const value = raw.trim().toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** The options that are switches. */
type FlagOption =
  | 'captureToolPayloads'
  | 'addFailureObjects'
  | 'declareExtension'
  | 'trustIncomingContext'
  | 'propagateContext'
  | 'emitFailureLogs'
  | 'redactThrownErrorText'
  | 'builtInRulePacks'
  | 'toolResultOutputs';

/**
 * Stack traces per second per tool and exception type, and failure log records per second per
 * tool, failure code and exception type: anything but a number >= 0 gives 10.
 */
export const DEFAULT_RATE_PER_SECOND = 10;

/** A rate option's rule: a number >= 0 (`Infinity` for no limit). */
export function isRate(value: unknown): value is number {
  return typeof value === 'number' && value >= 0;
}

/** The `exceptionSignal` option's rule. */
export function isExceptionSignal(value: unknown): value is 'logs' | 'logs/dup' {
  return value === 'logs' || value === 'logs/dup';
}

/** The `metaKey` option's rule: a non-empty string. */
export function isMetaKey(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
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

/**
 * The `classificationRules` option checked: a path is read here (the one read of resolution,
 * done once per configuration), each bad rule reported in one line and left out.
 */
function rulesOf(
  option: McpInstrumentationConfig['classificationRules'],
  warn: (message: string) => void,
): ClassificationRules | undefined {
  if (option === undefined) return undefined;
  const loaded =
    typeof option === 'string'
      ? loadClassificationRules(option)
      : Array.isArray(option)
        ? compileClassificationRules(option, 'option classificationRules')
        : {
            rules: undefined,
            problems: [
              `mcp: option classificationRules must be a file path or an array of rules (got ${shown(option)}); no rules apply`,
            ],
          };
  for (const problem of loaded.problems)
    warn(problem.startsWith('mcp:') ? problem : `mcp: ${problem}`);
  return loaded.rules === undefined || loaded.rules.size === 0 ? undefined : loaded.rules;
}
