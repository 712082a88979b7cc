import { baselineClassOfCode, isToolFailureClass } from './constants.js';
import { TOOL_FAILURE_RULES as R, type ToolFailureRule } from './rules.js';
import type { ToolFailureProblem } from './types.js';

/**
 * Own data properties of a failure object, read without running accessors: a plain object of the
 * reader's own making (a key is there when it is an own key).
 */
export type FailureFields = Readonly<Record<string, unknown>>;

/**
 * The one place that decides whether a failure object follows the proposal.
 * Pure: reads only the given fields and returns every problem found.
 */
export function checkFailureFields(fields: FailureFields): ToolFailureProblem[] {
  const problems: ToolFailureProblem[] = [];
  const has = (key: string): boolean => Object.hasOwn(fields, key);
  const get = (key: string): unknown => (Object.hasOwn(fields, key) ? fields[key] : undefined);
  const report = (r: ToolFailureRule, message: string): void => {
    problems.push({ rule: r.id, severity: r.severity, message });
  };

  const cls = get('class');
  if (!has('class')) report(R.CLASS_REQUIRED, 'toolFailure.class is missing');
  else if (!isToolFailureClass(cls))
    report(
      R.CLASS_ENUM,
      `toolFailure.class must be capability, reliability or governance (got ${describeValue(cls)})`,
    );

  const code = get('code');
  if (typeof code !== 'string' || code.length === 0) {
    report(
      R.CODE_REQUIRED,
      `toolFailure.code must be a non-empty string (got ${describeValue(code)})`,
    );
  } else if (isToolFailureClass(cls)) {
    const expected = baselineClassOfCode(code);
    if (expected !== undefined && expected !== cls)
      report(R.CODE_CLASS, `baseline code ${code} belongs to class ${expected}, not ${cls}`);
  }

  const retryable = get('retryable');
  if (has('retryable') && typeof retryable !== 'boolean') {
    report(
      R.RETRYABLE_TYPE,
      `toolFailure.retryable must be a boolean (got ${describeValue(retryable)})`,
    );
  } else if (retryable === true && isToolFailureClass(cls) && cls !== 'reliability') {
    report(R.RETRYABLE_CLASS, `toolFailure.retryable must be absent or false for class ${cls}`);
  }

  if (has('retryNotBefore')) {
    const rnb = get('retryNotBefore');
    if (typeof rnb !== 'number' || !Number.isFinite(rnb) || rnb < 0) {
      report(
        R.RETRY_NOT_BEFORE_TYPE,
        `toolFailure.retryNotBefore must be finite epoch milliseconds (got ${describeValue(rnb)})`,
      );
    } else if (retryable !== true) {
      report(
        R.RETRY_NOT_BEFORE_RETRYABLE,
        'toolFailure.retryNotBefore is set but retryable is not true',
      );
    }
  }

  const correlationId = get('correlationId');
  if (typeof correlationId !== 'string' || correlationId.length === 0)
    report(
      R.CORRELATION_REQUIRED,
      `toolFailure.correlationId must be a non-empty string (got ${describeValue(correlationId)})`,
    );

  if (has('agentGuidance') && typeof get('agentGuidance') !== 'string')
    report(
      R.GUIDANCE_TYPE,
      `toolFailure.agentGuidance must be a string (got ${describeValue(get('agentGuidance'))})`,
    );

  return problems;
}

/** A short, value-free description of what was found, safe for logs and span attributes. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length === 0 ? 'an empty string' : 'a string outside the allowed values';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a non-finite number';
  return `a ${typeof value}`;
}
