export {
  TOOL_FAILURE_META_KEY,
  TOOL_FAILURE_CLASSES,
  BASELINE_CODES,
  PACKAGE_CODES,
  baselineClassOfCode,
  isToolFailureClass,
} from './constants.js';
export { TOOL_FAILURE_RULES } from './rules.js';
export { checkFailureFields } from './check.js';
export { readToolFailure } from './read.js';
export { createToolFailure, toolFailure, toolFailureResult, messageOf } from './build.js';
export { ToolFailureError, isToolFailureError } from './error.js';
export { classifyError, DEFAULT_CLASSIFICATION, parseRetryAfter } from './classify.js';
export { correlationIdFor, randomTraceLikeId } from './correlation.js';
