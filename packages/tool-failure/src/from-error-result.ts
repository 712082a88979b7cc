import { ownString } from './wire/safe.js';
import { INVALID_PARAMS } from './wire/jsonrpc.js';
import { classifyError } from './classify.js';
import { modelContentOf, type ResultOutputsOptions } from './outputs.js';
import type { ErrorClassification, ErrorClassifier, ToolFailure } from './types.js';

/**
 * A tool's error result without a failure object, classified: by the error its callback threw,
 * or, when none did, by the SDK's own refusal text: "MCP error -32602: Tool x not found" (1.x),
 * "Input validation error: Invalid arguments for tool x: ..." (2.x). The text is the first block
 * of `content`, or with `outputs` (switch on) of the `assistant/content` outputs.
 */
export function classifyErrorResult(
  thrown: unknown,
  result: Record<string, unknown>,
  classifier: ErrorClassifier | undefined,
  shape?: ResultOutputsOptions,
): ErrorClassification {
  if (thrown !== undefined) return classifyError(thrown, { classifier });
  const first: unknown = modelContentOf(result, shape)[0];
  const text = ownString(first, 'text');
  const match = text === undefined ? null : SDK_ERROR_TEXT.exec(text);
  if (match !== null) {
    const code = Number(match[1]);
    const message = match[2] ?? '';
    if (code === INVALID_PARAMS && /^Tool \S.* (not found|disabled)$/.test(message)) {
      return { class: 'capability', code: 'capability_unsupported' };
    }
    return classifyError({ code }, { classifier });
  }
  // SDK 2.x writes its own argument check's refusal without the JSON-RPC prefix, and tmcp its
  // own two refusals (an unknown tool, arguments its schema rejects) in words of its own.
  if (text !== undefined && (SDK_INPUT_REFUSAL.test(text) || TMCP_INPUT_REFUSAL.test(text)))
    return classifyError({ code: INVALID_PARAMS }, { classifier });
  if (text !== undefined && TMCP_UNKNOWN_TOOL.test(text))
    return { class: 'capability', code: 'capability_unsupported' };
  return classifyError(undefined, { classifier });
}

const SDK_ERROR_TEXT = /^MCP error (-?\d+): (.*)$/s;
const SDK_INPUT_REFUSAL = /^Input validation error: /;
const TMCP_INPUT_REFUSAL = /^Invalid arguments for tool \S+: /;
const TMCP_UNKNOWN_TOOL = /^Tool \S+ not found$/;

/** The short text that replaces a thrown error's message when `redactThrownErrorText` is on. */
export function redactedText(failure: ToolFailure): string {
  return `The tool failed (${failure.class}: ${failure.code}). Reference: ${failure.correlationId}.`;
}
