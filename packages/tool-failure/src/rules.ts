import type { ProblemSeverity } from './types.js';

/**
 * One normative statement of the proposal, with its stable id: the record every rule of the
 * extension is (data model, client, intermediary), and every rule table reads.
 */
export interface Rule {
  id: string;
  /** The proposal's keyword for it. */
  level: 'MUST' | 'MUST NOT' | 'REQUIRED' | 'SHOULD' | 'RECOMMENDED' | 'MAY';
  /** The statement, in our words. */
  statement: string;
}

/** One normative statement of the proposal about the data model: a `Rule` with a severity. */
export interface ToolFailureRule extends Rule {
  severity: ProblemSeverity;
}

/**
 * Every data-model rule `readToolFailure()` can report. Ids are stable: tooling,
 * span attributes and `docs/conformance.md` refer to them.
 */
export const TOOL_FAILURE_RULES = Object.freeze({
  META_OBJECT: rule(
    'TF-META-OBJECT',
    'MUST',
    'error',
    '`_meta` of a result, when present, is an object.',
  ),
  FAILURE_OBJECT: rule(
    'TF-FAILURE-OBJECT',
    'MUST',
    'error',
    'The toolFailure value is a JSON object.',
  ),
  UNREADABLE: rule(
    'TF-UNREADABLE',
    'MUST',
    'error',
    'The failure object can be read as plain JSON data (no throwing accessors).',
  ),
  CLASS_REQUIRED: rule('TF-CLASS-REQUIRED', 'REQUIRED', 'error', '`class` is present.'),
  CLASS_ENUM: rule(
    'TF-CLASS-ENUM',
    'MUST',
    'error',
    '`class` is one of capability, reliability, governance.',
  ),
  CODE_REQUIRED: rule(
    'TF-CODE-REQUIRED',
    'REQUIRED',
    'error',
    '`code` is present and a non-empty string.',
  ),
  CODE_CLASS: rule(
    'TF-CODE-CLASS',
    'SHOULD',
    'warning',
    'A baseline code is used with the class the baseline vocabulary gives it.',
  ),
  RETRYABLE_TYPE: rule(
    'TF-RETRYABLE-TYPE',
    'MUST',
    'error',
    '`retryable`, when present, is a boolean.',
  ),
  RETRYABLE_CLASS: rule(
    'TF-RETRYABLE-CLASS',
    'MUST',
    'error',
    '`retryable` is absent or false unless `class` is reliability.',
  ),
  RETRY_NOT_BEFORE_TYPE: rule(
    'TF-RETRY-NOT-BEFORE-TYPE',
    'MUST',
    'error',
    '`retryNotBefore`, when present, is a finite, non-negative number of epoch milliseconds.',
  ),
  RETRY_NOT_BEFORE_RETRYABLE: rule(
    'TF-RETRY-NOT-BEFORE-RETRYABLE',
    'SHOULD',
    'warning',
    '`retryNotBefore` is only meaningful with `retryable: true`.',
  ),
  CORRELATION_REQUIRED: rule(
    'TF-CORRELATION-REQUIRED',
    'REQUIRED',
    'error',
    '`correlationId` is present and a non-empty string.',
  ),
  GUIDANCE_TYPE: rule(
    'TF-GUIDANCE-TYPE',
    'MUST',
    'error',
    '`agentGuidance`, when present, is a string.',
  ),
  ONLY_ON_ERROR: rule(
    'TF-ONLY-ON-ERROR',
    'MUST',
    'warning',
    'The failure object appears only on results with `isError: true`.',
  ),
});

/** The ids of `TOOL_FAILURE_RULES`. */
export type ToolFailureRuleId = (typeof TOOL_FAILURE_RULES)[keyof typeof TOOL_FAILURE_RULES]['id'];

function rule<const Id extends string>(
  id: Id,
  level: ToolFailureRule['level'],
  severity: ProblemSeverity,
  statement: string,
): ToolFailureRule & { id: Id } {
  return Object.freeze({ id, level, severity, statement });
}
