import { readFailureObject, retryPermissionOf, summaryOfFailure } from '@omcp/tool-failure';
import type { ToolFailure, ToolFailureReading } from '@omcp/tool-failure';
import type {
  DecideContext,
  FailureSummary,
  RetryDecision,
  RetryLimits,
  RetryReason,
} from './types.js';

// The proposal's rule on annotations is the data model's, shared with the model note.
export { isIdempotent } from '@omcp/tool-failure';

/** The defaults of `RetryLimits`. */
export const DEFAULT_RETRY_LIMITS: Readonly<RetryLimits> = Object.freeze({
  maxAttempts: 3,
  maxElapsedMs: 30_000,
});

/**
 * The client's dispatch for one received failure, as the proposal asks: on `class`, never
 * retrying capability or governance, retrying reliability only when `retryable` is true AND
 * the tool is idempotent, never before `retryNotBefore`, and within the attempt, time and
 * shared budgets. An unrecognised `code` is handled by its class alone; a malformed failure
 * object is never retried. Pure: no clock, no I/O.
 *
 * Accepts a `readToolFailure()` reading or a failure object (which is read the same way).
 */
export function decide(input: ToolFailureReading | ToolFailure, ctx: DecideContext): RetryDecision {
  const reading = isReading(input) ? input : readFailureObject(input);
  if (reading.status === 'absent')
    return { action: 'stop', reason: 'not_classified', outcome: 'failure' };
  if (reading.status === 'invalid')
    return { action: 'stop', reason: 'malformed', outcome: 'failure' };
  return decideOn(
    summaryOfFailure(reading.failure),
    ctx,
    'retryable_failure',
    reading.failure.agentGuidance,
  );
}

/**
 * The same rules for anything already classified: a valid failure, or a thrown error
 * classified by `classifyError` when the policy opts in to retrying thrown errors.
 */
export function decideOn(
  failure: FailureSummary,
  ctx: DecideContext,
  reason: RetryReason,
  agentGuidance?: string,
): RetryDecision {
  const guidance = agentGuidance === undefined ? {} : { agentGuidance };
  switch (failure.class) {
    case 'capability':
      return { action: 'surface', reason: 'capability', failure, ...guidance };
    case 'governance':
      return { action: 'out_of_band', reason: 'governance', failure, ...guidance };
    case 'reliability':
      break;
    default:
      // Unreachable for a valid reading; an unknown class is treated as malformed.
      return { action: 'stop', reason: 'malformed', outcome: 'failure', failure };
  }
  // Retryable and idempotent: the one rule (retryPermissionOf), which the model note follows too.
  const permission = retryPermissionOf(failure, ctx.annotations);
  if (permission === 'not_retryable')
    return { action: 'stop', reason: 'not_retryable', outcome: 'failure', failure };
  if (permission === 'not_idempotent')
    return { action: 'stop', reason: 'not_idempotent', outcome: 'failure', failure };
  if (ctx.attempt >= ctx.limits.maxAttempts)
    return { action: 'stop', reason: 'attempts_exhausted', outcome: 'retries_exhausted', failure };
  if (ctx.retryBudgetAllows === false)
    return {
      action: 'stop',
      reason: 'retry_budget_exhausted',
      outcome: 'budget_exhausted',
      failure,
    };

  const remaining = ctx.limits.maxElapsedMs - ctx.elapsedMs;
  const notBeforeWait =
    failure.retryNotBefore === undefined
      ? 0
      : Math.max(0, Math.ceil(failure.retryNotBefore - ctx.now));
  if (remaining <= 0)
    return {
      action: 'stop',
      reason: 'time_budget_exhausted',
      outcome: 'budget_exhausted',
      failure,
    };
  if (notBeforeWait > remaining)
    return {
      action: 'stop',
      reason: 'retry_not_before_beyond_budget',
      outcome: 'budget_exhausted',
      failure,
    };

  const backoff = sanitize(ctx.backoffMs);
  // The budget clamps the backoff (as p-retry's maxRetryTime does), never the server's hint.
  const clamped = Math.min(backoff, remaining);
  const delaySource =
    notBeforeWait > 0 && notBeforeWait >= clamped ? 'retry_not_before' : 'backoff';
  const delayMs = Math.ceil(Math.max(notBeforeWait, clamped));
  return { action: 'retry', delayMs, reason, delaySource, failure };
}

function isReading(input: ToolFailureReading | ToolFailure): input is ToolFailureReading {
  const status: unknown = (input as { status?: unknown }).status;
  return (
    !Object.prototype.hasOwnProperty.call(input, 'class') &&
    (status === 'absent' || status === 'valid' || status === 'invalid') &&
    Array.isArray((input as { problems?: unknown }).problems)
  );
}

function sanitize(ms: number | undefined): number {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : 0;
}
