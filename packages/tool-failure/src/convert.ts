import type { ErrorClassification, FailureSummary, ToolFailure } from './types.js';

/**
 * Every conversion between the failure shapes, in one place: the wire object (`ToolFailure`),
 * what a classifier says of a thrown error (`ErrorClassification`), and what a retry decision
 * reads of either (`FailureSummary`). Each copies only the fields the target has.
 */

/**
 * The failure object of a classification: class and code, the retry hints it allows
 * (`retryNotBefore` only with `retryable: true`), its guidance, and `correlationId`.
 */
export function failureFromClassification(
  classification: ErrorClassification,
  correlationId: string,
): ToolFailure {
  const failure: ToolFailure = {
    class: classification.class,
    code: classification.code,
    correlationId,
  };
  if (classification.retryable !== undefined) failure.retryable = classification.retryable;
  if (classification.retryNotBefore !== undefined && classification.retryable === true)
    failure.retryNotBefore = classification.retryNotBefore;
  if (classification.agentGuidance !== undefined)
    failure.agentGuidance = classification.agentGuidance;
  return failure;
}

/** What a retry decision reads of a failure object. */
export function summaryOfFailure(failure: ToolFailure): FailureSummary {
  const out = summaryOfClassification(failure);
  out.correlationId = failure.correlationId;
  return out;
}

/** What a retry decision reads of a classified thrown error (no `correlationId`: none was sent). */
export function summaryOfClassification(
  classification: Pick<ErrorClassification, 'class' | 'code' | 'retryable' | 'retryNotBefore'>,
): FailureSummary {
  const out: FailureSummary = { class: classification.class, code: classification.code };
  if (classification.retryable !== undefined) out.retryable = classification.retryable;
  if (classification.retryNotBefore !== undefined)
    out.retryNotBefore = classification.retryNotBefore;
  return out;
}
