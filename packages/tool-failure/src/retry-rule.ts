import type { FailureSummary } from './types.js';

/**
 * The hints of a tool's MCP `ToolAnnotations` that the proposal's retry rule reads. Hints from
 * `tools/list`, untrusted; `undefined` (or `null`) where the tool's annotations are unknown.
 */
export interface ToolRetryHints {
  idempotentHint?: boolean;
  readOnlyHint?: boolean;
}

/**
 * What the proposal's rule allows for a failure of a tool with those annotations. One of:
 *
 * - `allowed`: a `reliability` failure with `retryable: true` of a tool that declares
 *   `idempotentHint: true`: it may be sent again without asking (never before `retryNotBefore`);
 * - `not_reliability`: capability or governance: never the same call again;
 * - `not_retryable`: a reliability failure without `retryable: true`;
 * - `not_idempotent`: retryable, but the tool does not declare `idempotentHint: true` (or its
 *   annotations are unknown): sending it again may repeat its effect, so only a person may
 *   decide to.
 */
export type RetryPermission = 'allowed' | 'not_reliability' | 'not_retryable' | 'not_idempotent';

/**
 * Whether the annotations allow an automatic retry. Only `idempotentHint: true` does: the MCP
 * default for `idempotentHint` is false, unknown annotations count as absent, and
 * `readOnlyHint` alone does not (the proposal gates on `idempotentHint`).
 */
export function isIdempotent(annotations: ToolRetryHints | null | undefined): boolean {
  return annotations?.idempotentHint === true;
}

/**
 * The proposal's retry rule, the one definition the retry engine (`decide`) and the model note
 * (`toolFailureNote`) both follow: a reliability retry only when `retryable` is true AND the
 * tool's annotations allow it. Pure; says nothing of when (`retryNotBefore`) or of budgets.
 */
export function retryPermissionOf(
  failure: Pick<FailureSummary, 'class' | 'retryable'>,
  annotations: ToolRetryHints | null | undefined,
): RetryPermission {
  if (failure.class !== 'reliability') return 'not_reliability';
  if (failure.retryable !== true) return 'not_retryable';
  return isIdempotent(annotations) ? 'allowed' : 'not_idempotent';
}
