/**
 * The client's retry policy, dispatching on the failure's class as the proposal says.
 * `withToolRetry(client, policy)` wraps one client; `createToolRetry(policy)` is an engine whose
 * budget several clients share.
 *
 * @module @omcp/instrumentation-mcp/retry
 */
export { withToolRetry, createToolRetry, toolCallReportOf } from './with-tool-retry.js';
export { decide, decideOn, isIdempotent, DEFAULT_RETRY_LIMITS } from './decide.js';
export { DEFAULT_BACKOFF } from './backoff.js';
export { createRetryBudget } from './budget.js';
export { createCircuitBreaker, DEFAULT_CIRCUIT_BREAKER } from './breaker.js';
export { ATTEMPT_META_KEY } from '../shared/attempt-meta.js';
export { isCircuitOpenAnswer } from './circuit-answer.js';
export { getToolAnnotations, refreshToolAnnotations } from '../shared/tool-annotations.js';
export type { ToolRetry, ToolRetryClient } from './with-tool-retry.js';
export type { RetryableClient } from './types.js';
export type { TokenBucketRetryBudget } from './budget.js';
export type { CircuitAdmission, CircuitBreaker, CircuitPermit } from './breaker.js';
export type { RetryHints, ToolAnnotations } from '../shared/tool-annotations.js';
export type { LoggerLike, LoggerProviderLike, LogRecordLike } from '../shared/logs.js';
export type {
  BackoffOptions,
  CircuitBreakerOptions,
  CircuitOutcome,
  CircuitState,
  CircuitTransition,
  DecideContext,
  FailureSummary,
  GiveUpInfo,
  JitterStrategy,
  RetryBudget,
  RetryBudgetOptions,
  RetryClock,
  RetryDecision,
  RetryDelaySource,
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
