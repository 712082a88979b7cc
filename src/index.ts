export {
  TOOL_FAILURE_META_KEY,
  TOOL_FAILURE_CLASSES,
  BASELINE_CODES,
  PACKAGE_CODES,
  TOOL_FAILURE_RULES,
  baselineClassOfCode,
  isToolFailureClass,
  readToolFailure,
  createToolFailure,
  toolFailure,
  ToolFailureError,
  isToolFailureError,
  classifyError,
  DEFAULT_CLASSIFICATION,
  parseRetryAfter,
  correlationIdFor,
} from './tool-failure/index.js';
export { McpInstrumentation, SDK_V1_RANGE, SDK_V2_RANGE } from './instrumentation.js';
export { instrumentClient, instrumentServer } from './default-instance.js';
export { getToolAnnotations, refreshToolAnnotations } from './shared/tool-annotations.js';
export { withAttempt, attemptOf } from './shared/attempt-context.js';
export { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';
export type {
  ToolFailure,
  ToolFailureClass,
  ToolFailureInit,
  ToolFailureResult,
  ToolFailureResultOptions,
  ToolResultContent,
  TextContentBlock,
  ToolFailureProblem,
  ToolFailureReading,
  ProblemSeverity,
  ErrorClassification,
  ErrorClassifier,
} from './tool-failure/types.js';
export type { ToolFailureRule, ToolFailureRuleId } from './tool-failure/rules.js';
export type { ReadToolFailureOptions } from './tool-failure/read.js';
export type { ClassifyErrorOptions } from './tool-failure/classify.js';
export type { ToolFailureErrorInit } from './tool-failure/error.js';
export type {
  McpInstrumentationConfig,
  McpRequestInfo,
  McpResponseInfo,
  McpSpanHook,
} from './types.js';
export type { ToolAnnotations } from './shared/tool-annotations.js';
export type {
  RetryableClient,
  ToolRetryClient,
  TokenBucketRetryBudget,
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
} from './retry/index.js';
export {
  withToolRetry,
  toolCallReportOf,
  decide,
  decideOn,
  isIdempotent,
  DEFAULT_RETRY_LIMITS,
  backoffDelay,
  exponentialDelay,
  fullJitter,
  equalJitter,
  decorrelatedJitter,
  DEFAULT_BACKOFF,
  sleep,
  systemClock,
  createRetryBudget,
} from './retry/index.js';
export { createToolFailureProxy } from './proxy/index.js';
export type {
  ToolFailureProxy,
  ToolFailureProxyOptions,
  UpstreamTransportFactory,
} from './proxy/index.js';
