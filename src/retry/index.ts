export { withToolRetry, toolCallReportOf } from './with-tool-retry.js';
export { decide, decideOn, isIdempotent, summarize, DEFAULT_RETRY_LIMITS } from './decide.js';
export {
  backoffDelay,
  exponentialDelay,
  fullJitter,
  equalJitter,
  decorrelatedJitter,
  resolveBackoff,
  DEFAULT_BACKOFF,
} from './backoff.js';
export { sleep, systemClock } from './sleep.js';
export { createRetryBudget } from './budget.js';
export type { RetryableClient, ToolRetryClient } from './with-tool-retry.js';
export type { TokenBucketRetryBudget } from './budget.js';
export type {
  BackoffOptions,
  DecideContext,
  FailureSummary,
  GiveUpInfo,
  JitterStrategy,
  RetryBudget,
  RetryBudgetOptions,
  RetryClock,
  RetryDecision,
  RetryEventInfo,
  RetryLimits,
  RetryReason,
  StopReason,
  ToolAnnotationsProvider,
  ToolCallOutcome,
  ToolCallReport,
  ToolRetryAnnotations,
  ToolRetryPolicy,
} from './types.js';
