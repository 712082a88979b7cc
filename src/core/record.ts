import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import { safeExecuteInTheMiddle } from '@opentelemetry/instrumentation';
import type { TelemetrySource } from '../internal-types.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_PROBLEMS,
  ERROR_TYPE_VALUE_TOOL_ERROR,
} from '../semconv.js';
import type { ToolFailure, ToolFailureReading } from '../tool-failure/types.js';
import type { McpSpanHook } from '../types.js';
import { setFailureAttributes } from './failure-attributes.js';
import { metricCode } from './metrics.js';
import { ownValue } from './safe.js';

/** What a failing `tools/call` result left for the caller of `recordToolResult`. */
export interface ToolResultFailure {
  /** The operation's metric attributes plus `error.type` (and the failure class). */
  metricAttrs: Attributes;
  /** The failure object, when the result carried a valid one. */
  failure: ToolFailure | undefined;
}

/**
 * Records a `tools/call` result on a span and the failure counter of `side`: `isError`
 * becomes `error.type=tool_error` and status ERROR; a valid failure object adds the
 * `mcp.tool.failure.*` attributes; a malformed one adds its rule ids. `reading` undefined
 * means the result has no `_meta` (nothing to read). Returns `undefined` for a result that is
 * not an error (the success path allocates nothing here).
 */
export function recordToolResult(
  source: TelemetrySource,
  span: Span,
  metricAttrs: Attributes,
  result: unknown,
  reading: ToolFailureReading | undefined,
  side: 'client' | 'server',
): ToolResultFailure | undefined {
  const config = source.config();
  if (reading !== undefined && reading.problems.length > 0) {
    span.setAttribute(
      ATTR_MCP_TOOL_FAILURE_PROBLEMS,
      [...new Set(reading.problems.map((p) => p.rule))].join(','),
    );
  }
  if (ownValue(result, 'isError') !== true) return undefined;
  span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_TOOL_ERROR);
  span.setStatus({ code: SpanStatusCode.ERROR });
  const failed: Attributes = { ...metricAttrs, [ATTR_ERROR_TYPE]: ERROR_TYPE_VALUE_TOOL_ERROR };
  const counterAttrs: Attributes = { [ATTR_ERROR_TYPE]: ERROR_TYPE_VALUE_TOOL_ERROR };
  const tool = metricAttrs[ATTR_GEN_AI_TOOL_NAME];
  if (tool !== undefined) counterAttrs[ATTR_GEN_AI_TOOL_NAME] = tool;
  let failure: ToolFailure | undefined;
  if (reading?.status === 'valid') {
    failure = reading.failure;
    setFailureAttributes(span, failure, config.maxAttributeLength);
    failed[ATTR_MCP_TOOL_FAILURE_CLASS] = failure.class;
    counterAttrs[ATTR_MCP_TOOL_FAILURE_CLASS] = failure.class;
    counterAttrs[ATTR_MCP_TOOL_FAILURE_CODE] = metricCode(failure.code, config.metricCodes);
  }
  const instruments = source.instruments();
  (side === 'client' ? instruments.clientFailures : instruments.serverFailures).add(
    1,
    counterAttrs,
  );
  return { metricAttrs: failed, failure };
}

/** Runs a user hook so that nothing it does can reach the caller. */
export function runHook<Info>(
  source: TelemetrySource,
  hook: McpSpanHook<Info> | undefined,
  span: Span,
  info: Info,
): void {
  if (typeof hook !== 'function') return;
  safeExecuteInTheMiddle(
    () => hook(span, info),
    (err) => {
      if (err !== undefined) source.diag.error('mcp: a user hook threw', err);
    },
    true,
  );
}

/** JSON for payload capture; never throws. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[unserializable]';
  }
}
