import type { Attributes, Span } from '@opentelemetry/api';
import {
  ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
  ATTR_MCP_TOOL_FAILURE_RETRYABLE,
  ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE,
} from '../semconv.js';
import type { ToolFailure } from '../tool-failure/types.js';
import { truncate } from './truncate.js';

/** Span attributes of a valid failure object; free text is length-capped. */
export function failureAttributes(failure: ToolFailure, maxLength: number): Attributes {
  const attrs: Attributes = {
    [ATTR_MCP_TOOL_FAILURE_CLASS]: failure.class,
    [ATTR_MCP_TOOL_FAILURE_CODE]: truncate(failure.code, maxLength),
    [ATTR_MCP_TOOL_FAILURE_CORRELATION_ID]: truncate(failure.correlationId, maxLength),
  };
  if (failure.retryable !== undefined) attrs[ATTR_MCP_TOOL_FAILURE_RETRYABLE] = failure.retryable;
  if (failure.retryNotBefore !== undefined)
    attrs[ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE] = failure.retryNotBefore;
  if (failure.agentGuidance !== undefined) {
    attrs[ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE] = truncate(failure.agentGuidance, maxLength);
  }
  return attrs;
}

/** Sets the attributes of `failureAttributes` on a span, one by one (no intermediate object). */
export function setFailureAttributes(span: Span, failure: ToolFailure, maxLength: number): void {
  span.setAttribute(ATTR_MCP_TOOL_FAILURE_CLASS, failure.class);
  span.setAttribute(ATTR_MCP_TOOL_FAILURE_CODE, truncate(failure.code, maxLength));
  span.setAttribute(
    ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
    truncate(failure.correlationId, maxLength),
  );
  if (failure.retryable !== undefined)
    span.setAttribute(ATTR_MCP_TOOL_FAILURE_RETRYABLE, failure.retryable);
  if (failure.retryNotBefore !== undefined)
    span.setAttribute(ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE, failure.retryNotBefore);
  if (failure.agentGuidance !== undefined)
    span.setAttribute(
      ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE,
      truncate(failure.agentGuidance, maxLength),
    );
}
