// `@omcp/tool-failure/internal`: the data model's building blocks that the other @omcp packages
// share (the instrumentation, the proxy, the checkers). Not a stable interface: names here may
// change in any release. Server authors use the package's main entry.
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
export { missingPeerLine, startExecutable } from './executable.js';
