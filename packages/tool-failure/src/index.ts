/**
 * The tool-failure extension's data model. Build a failure result (`toolFailure`,
 * `ToolFailureError`), read one without trusting it (`readToolFailure`, with stable rule ids),
 * classify a thrown error (`classifyError`).
 *
 * @module @omcp/tool-failure
 */
export {
  TOOL_FAILURE_META_KEY,
  TOOL_FAILURE_CLASSES,
  BASELINE_CODES,
  PACKAGE_CODES,
  baselineClassOfCode,
  isToolFailureClass,
} from './constants.js';
export { TOOL_FAILURE_RULES } from './rules.js';
export { readToolFailure } from './read.js';
export { createToolFailure, toolFailure } from './build.js';
export { ToolFailureError, isToolFailureError } from './error.js';
export { classifyError, DEFAULT_CLASSIFICATION, parseRetryAfter } from './classify.js';
export { correlationIdFor } from './correlation.js';
export {
  TOOL_FAILURE_NOTE_HEADER,
  NOTE_GUIDANCE_MAX,
  NOTE_RETRY_WITH_CONSENT,
  toolFailureNote,
  toolFailureNoteOf,
  withToolFailureNote,
  withNoteInResult,
  contentTextOf,
} from './model-note.js';
export type { ModelNoteOptions, ToolFailureNoteOptions } from './model-note.js';
export { isIdempotent, retryPermissionOf } from './retry-rule.js';
export type { RetryPermission, ToolRetryHints } from './retry-rule.js';
export type { ResultOutputsOptions, ToolResultOutput } from './outputs.js';
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
  FailureSummary,
} from './types.js';
export type { ToolFailureRule, ToolFailureRuleId } from './rules.js';
export type { ReadToolFailureOptions } from './read.js';
export type { ClassifyErrorOptions } from './classify.js';
export type { ToolFailureErrorInit } from './error.js';
// The building blocks the instrumentation, the proxy and the kit compose: a failure result from
// parts, error results and thrown errors classified, declarations, outputs, rule packs.
export { toolFailureResult } from './build.js';
export { isTransientNetworkCode, tryClassifier } from './classify.js';
export { compileClassificationRules, loadClassificationRules } from './classification-rules.js';
export type { ClassificationRule, ClassificationRules } from './classification-rules.js';
export { failureFromClassification, summaryOfClassification, summaryOfFailure } from './convert.js';
export { randomTraceLikeId } from './correlation.js';
export { carriesExtensions, declaresExtension, withDeclaration } from './declaration.js';
export { classifyErrorResult, redactedText } from './from-error-result.js';
export { hasAssistantOutput, modelContentOf, outputSelectorsOf, outputsOf } from './outputs.js';
export { readFailureObject, readToolFailureMeta } from './read.js';
export { rulePackFor } from './rule-packs.js';
export type { Rule } from './rules.js';
