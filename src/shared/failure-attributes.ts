import type { Attributes, Span } from '@opentelemetry/api';
import {
  ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
  ATTR_MCP_TOOL_FAILURE_RETRYABLE,
  ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE,
} from '../semconv.js';
import type { ToolFailure } from '@omcp/tool-failure';
import { truncate } from './truncate.js';

/** Span attributes of a valid failure object; free text is length-capped. */
export function failureAttributes(failure: ToolFailure, maxLength: number): Attributes {
  const attrs: Attributes = {};
  writeFailureAttributes(failure, maxLength, (key, value) => (attrs[key] = value));
  return attrs;
}

/** Sets the attributes of `failureAttributes` on a span, one by one (no intermediate object). */
export function setFailureAttributes(span: Span, failure: ToolFailure, maxLength: number): void {
  writeFailureAttributes(failure, maxLength, (key, value) => span.setAttribute(key, value));
}

function writeFailureAttributes(
  failure: ToolFailure,
  maxLength: number,
  write: (key: string, value: string | number | boolean) => void,
): void {
  write(ATTR_MCP_TOOL_FAILURE_CLASS, failure.class);
  write(ATTR_MCP_TOOL_FAILURE_CODE, truncate(failure.code, maxLength));
  write(ATTR_MCP_TOOL_FAILURE_CORRELATION_ID, truncate(failure.correlationId, maxLength));
  if (failure.retryable !== undefined) write(ATTR_MCP_TOOL_FAILURE_RETRYABLE, failure.retryable);
  if (failure.retryNotBefore !== undefined)
    write(ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE, failure.retryNotBefore);
  if (failure.agentGuidance !== undefined)
    write(ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE, truncate(failure.agentGuidance, maxLength));
}
