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
export type {
  ToolFailure,
  ToolFailureClass,
  ToolFailureInit,
  ToolFailureResult,
  ToolFailureResultOptions,
  ToolResultContent,
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
