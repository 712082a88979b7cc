import { checkFailureFields } from './check.js';
import { TOOL_FAILURE_META_KEY } from './constants.js';
import { correlationIdFor } from './correlation.js';
import type {
  TextContentBlock,
  ToolFailure,
  ToolFailureInit,
  ToolFailureResult,
  ToolFailureResultOptions,
} from './types.js';

/**
 * Builds the failure object from an author's init, filling `correlationId` from the
 * active span. Throws a `TypeError` naming the broken rule for anything the proposal forbids.
 */
export function createToolFailure(init: ToolFailureInit): ToolFailure {
  if (typeof init !== 'object' || init === null) {
    throw new TypeError('toolFailure: expected an object with class and code');
  }
  const failure: ToolFailure = {
    class: init.class,
    code: init.code,
    correlationId: init.correlationId ?? correlationIdFor(),
  };
  if (init.retryable !== undefined) failure.retryable = init.retryable;
  if (init.retryNotBefore !== undefined) {
    failure.retryNotBefore =
      init.retryNotBefore instanceof Date ? init.retryNotBefore.getTime() : init.retryNotBefore;
  }
  if (init.agentGuidance !== undefined) failure.agentGuidance = init.agentGuidance;
  assertValid(failure);
  if (init.message !== undefined && typeof init.message !== 'string') {
    throw new TypeError('toolFailure: message must be a string');
  }
  return failure;
}

/**
 * Builds a `CallToolResult` for a classified failure: `isError: true`, a text block with
 * the human message, and the failure object under `_meta["io.modelcontextprotocol/toolFailure"]`.
 */
export function toolFailure(
  init: ToolFailureInit,
  options?: ToolFailureResultOptions,
): ToolFailureResult {
  const failure = createToolFailure(init);
  return toolFailureResult(failure, failureMessageOf(init), options);
}

/** Wraps an already built failure object into a `CallToolResult`. */
export function toolFailureResult<C extends { type: string } = TextContentBlock>(
  failure: ToolFailure,
  message: string,
  options?: ToolFailureResultOptions<C>,
): ToolFailureResult<C> {
  const result: ToolFailureResult<C> = {
    content: [{ type: 'text', text: message }, ...(options?.content ?? [])],
    isError: true,
    _meta: { ...options?.meta, [options?.metaKey ?? TOOL_FAILURE_META_KEY]: failure },
  };
  if (options?.structuredContent !== undefined)
    result.structuredContent = options.structuredContent;
  return result;
}

/** The human text for a failure: the given message, else the guidance, else a generic line. */
export function failureMessageOf(
  init: Pick<ToolFailureInit, 'message' | 'agentGuidance' | 'class' | 'code'>,
): string {
  return init.message ?? init.agentGuidance ?? `Tool failed (${init.class}: ${init.code}).`;
}

function assertValid(failure: ToolFailure): void {
  const fields = Object.fromEntries(Object.entries(failure).filter(([, v]) => v !== undefined));
  const problems = checkFailureFields(fields);
  const first = problems[0];
  if (first !== undefined) {
    throw new TypeError(`toolFailure: ${first.message} [${first.rule}]`);
  }
}
