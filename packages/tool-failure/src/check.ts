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
  // Each field once, as an own key (the object is the reader's own: nothing here runs code of
  // the sender's); plain statements rather than helper closures, since this runs on every
  // failure a client receives.
  const hasClass = Object.hasOwn(fields, 'class');
  const cls = hasClass ? fields.class : undefined;
  const knownClass = isToolFailureClass(cls);
  if (!hasClass) report(problems, R.CLASS_REQUIRED, 'toolFailure.class is missing');
  else if (!knownClass)
    report(
      problems,
      R.CLASS_ENUM,
      `toolFailure.class must be capability, reliability or governance (got ${describeValue(cls)})`,
    );

  const code = Object.hasOwn(fields, 'code') ? fields.code : undefined;
  if (typeof code !== 'string' || code.length === 0) {
    report(
      problems,
      R.CODE_REQUIRED,
      `toolFailure.code must be a non-empty string (got ${describeValue(code)})`,
    );
  } else if (knownClass) {
    const expected = baselineClassOfCode(code);
    if (expected !== undefined && expected !== cls)
      report(
        problems,
        R.CODE_CLASS,
        `baseline code ${code} belongs to class ${expected}, not ${String(cls)}`,
      );
  }

  const hasRetryable = Object.hasOwn(fields, 'retryable');
  const retryable = hasRetryable ? fields.retryable : undefined;
  if (hasRetryable && typeof retryable !== 'boolean') {
    report(
      problems,
      R.RETRYABLE_TYPE,
      `toolFailure.retryable must be a boolean (got ${describeValue(retryable)})`,
    );
  } else if (retryable === true && knownClass && cls !== 'reliability') {
    report(
      problems,
      R.RETRYABLE_CLASS,
      `toolFailure.retryable must be absent or false for class ${String(cls)}`,
    );
  }

  if (Object.hasOwn(fields, 'retryNotBefore')) {
    const rnb = fields.retryNotBefore;
    if (typeof rnb !== 'number' || !Number.isFinite(rnb) || rnb < 0) {
      report(
        problems,
        R.RETRY_NOT_BEFORE_TYPE,
        `toolFailure.retryNotBefore must be finite epoch milliseconds (got ${describeValue(rnb)})`,
      );
    } else if (retryable !== true) {
      report(
        problems,
        R.RETRY_NOT_BEFORE_RETRYABLE,
        'toolFailure.retryNotBefore is set but retryable is not true',
      );
    }
  }

  const correlationId = Object.hasOwn(fields, 'correlationId') ? fields.correlationId : undefined;
  if (typeof correlationId !== 'string' || correlationId.length === 0)
    report(
      problems,
      R.CORRELATION_REQUIRED,
      `toolFailure.correlationId must be a non-empty string (got ${describeValue(correlationId)})`,
    );

  if (Object.hasOwn(fields, 'agentGuidance') && typeof fields.agentGuidance !== 'string')
    report(
      problems,
      R.GUIDANCE_TYPE,
      `toolFailure.agentGuidance must be a string (got ${describeValue(fields.agentGuidance)})`,
    );

  return problems;
}

function report(problems: ToolFailureProblem[], r: ToolFailureRule, message: string): void {
  problems.push({ rule: r.id, severity: r.severity, message });
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
