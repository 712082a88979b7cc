import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import { safeExecuteInTheMiddle } from '@opentelemetry/instrumentation';
import type { ResolvedConfig, TelemetrySource } from '../internal-types.js';
import type { ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT } from '../semconv.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_TOOL_CALL_OUTPUTS,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_PROBLEMS,
  ERROR_TYPE_VALUE_TOOL_ERROR,
} from '../semconv.js';
import { outputSelectorsOf, outputsOf } from '@omcp/tool-failure';
import type { ToolFailure, ToolFailureReading } from '@omcp/tool-failure';
import type { McpResponseInfo, McpSpanHook } from '../types.js';
import { setFailureAttributes } from './failure-attributes.js';
import { metricCode } from './metrics.js';
import { field, ownString, ownValue } from '@omcp/tool-failure/wire';
import { truncate } from './truncate.js';
import { PROTOCOL_VERSION_META_KEY } from '@omcp/tool-failure/wire';

/** What a failing `tools/call` result left for the caller of `recordToolResult`. */
export interface ToolResultFailure {
  /** The operation's metric attributes plus `error.type` (and the failure class). */
  metricAttrs: Attributes;
  /** The failure object, when the result carried a valid one. */
  failure: ToolFailure | undefined;
}

/**
 * Records a `tools/call` result on a span and the failure counter of `side`: `isError` (the
 * result's own `isError` is `true`, as the caller read it) becomes `error.type=tool_error` and
 * status ERROR; a valid failure object adds the `mcp.tool.failure.*` attributes; a malformed one
 * adds its rule ids. `reading` undefined means the result has no `_meta` (nothing to read).
 * Returns `undefined` for a result that is not an error (the success path allocates nothing
 * here).
 */
export function recordToolResult(
  source: TelemetrySource,
  span: Span,
  metricAttrs: Attributes,
  isError: boolean,
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
  if (!isError) return undefined;
  span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_TOOL_ERROR);
  span.setStatus({ code: SpanStatusCode.ERROR });
  const tool = metricAttrs[ATTR_GEN_AI_TOOL_NAME];
  let failure: ToolFailure | undefined;
  if (reading?.status === 'valid') {
    failure = reading.failure;
    setFailureAttributes(span, failure, config.maxAttributeLength);
  }
  const instruments = source.instruments();
  (side === 'client' ? instruments.clientFailures : instruments.serverFailures).add(
    typeof tool === 'string' ? tool : undefined,
    failure?.class,
    failure === undefined ? undefined : metricCode(failure.code, config.metricCodes),
  );
  return { metricAttrs: failedAttributes(metricAttrs, failure?.class), failure };
}

/**
 * The duration histogram's attributes of a failed tool call: the operation's plus
 * `error.type=tool_error` and the failure class. Frozen and kept per operation and class, so a
 * failing call allocates none (weakly: they go with the operation's attributes).
 */
const failedByOperation = new WeakMap<Attributes, Map<string | undefined, Attributes>>();

function failedAttributes(opAttrs: Attributes, cls: string | undefined): Attributes {
  let byClass = failedByOperation.get(opAttrs);
  let attrs = byClass?.get(cls);
  if (attrs !== undefined) return attrs;
  const built: Attributes = { ...opAttrs, [ATTR_ERROR_TYPE]: ERROR_TYPE_VALUE_TOOL_ERROR };
  if (cls !== undefined) built[ATTR_MCP_TOOL_FAILURE_CLASS] = cls;
  attrs = Object.freeze(built);
  if (byClass === undefined) failedByOperation.set(opAttrs, (byClass = new Map()));
  byClass.set(cls, attrs);
  return attrs;
}

/**
 * With `toolResultOutputs` on, puts the `audience/format` of a `tools/call` result's `outputs`
 * on its span (either side). Off, or a result without `outputs`, nothing is read or set.
 */
export function recordOutputs(span: Span, config: ResolvedConfig, result: unknown): void {
  if (!config.toolResultOutputs) return;
  const outputs = outputsOf(result, { outputs: true });
  if (outputs !== undefined)
    span.setAttribute(ATTR_MCP_TOOL_CALL_OUTPUTS, outputSelectorsOf(outputs));
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

/**
 * Records a tool payload (the result, or `key` of it: the request's `arguments`) on `span` when
 * `captureToolPayloads` is on, as JSON capped at 16 × `maxAttributeLength`. Off, nothing is read,
 * serialised or copied.
 */
export function capturePayload(
  span: Span,
  config: ResolvedConfig,
  attribute: typeof ATTR_GEN_AI_TOOL_CALL_ARGUMENTS | typeof ATTR_GEN_AI_TOOL_CALL_RESULT,
  value: unknown,
  key?: string,
): void {
  if (!config.captureToolPayloads) return;
  const payload = key === undefined ? value : ownValue(value, key);
  span.setAttribute(attribute, truncate(safeJson(payload), 16 * config.maxAttributeLength));
}

/** The protocol version each protocol object (client or server) negotiated in `initialize`. */
const protocolVersions = new WeakMap<object, string>();

/**
 * The version `protocol` negotiated: the one its `initialize` completed with, else the one the
 * 2.x SDK recorded on the instance itself (`_negotiatedProtocolVersion`, which its connect-time
 * `server/discover` negotiation sets for 2026-07-28 and which decides the `_meta` envelope the
 * client sends). Undefined before either.
 */
export function negotiatedVersion(protocol: object): string | undefined {
  const remembered = protocolVersions.get(protocol);
  if (remembered !== undefined) return remembered;
  const recorded = field(protocol, '_negotiatedProtocolVersion');
  return typeof recorded === 'string' && recorded.length > 0 ? recorded : undefined;
}

/** The version a request names in its own `_meta` (2026-07-28's per-request envelope). */
export function requestVersion(params: unknown): string | undefined {
  return ownString(ownValue(params, '_meta'), PROTOCOL_VERSION_META_KEY);
}

/**
 * The version the server transport handed over with a message (its `extra`), for a server that
 * negotiated nothing (stateless Streamable HTTP: a new server per request, no `initialize`):
 * the revision the 2.x per-request transport classified, else the `MCP-Protocol-Version` header
 * of the HTTP request, as the 2.x transport passes it (a web `Request`) or the 1.x one
 * (`requestInfo.headers`, a plain object).
 */
export function transportVersion(extra: unknown): string | undefined {
  const revision = ownString(ownValue(extra, 'classification'), 'revision');
  if (revision !== undefined) return revision;
  const request = ownValue(extra, 'request');
  if (typeof Request === 'function' && request instanceof Request) {
    try {
      const header = request.headers.get(PROTOCOL_VERSION_HEADER);
      return header === null || header.length === 0 ? undefined : header;
    } catch {
      return undefined;
    }
  }
  return ownString(ownValue(ownValue(extra, 'requestInfo'), 'headers'), PROTOCOL_VERSION_HEADER);
}

/** The Streamable HTTP header, lower-cased as both SDKs hand headers over. */
const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';

/**
 * Remembers the version of an `initialize` result for `protocol` and puts it on the span;
 * returns it (undefined when the result names none).
 */
export function rememberNegotiatedVersion(
  protocol: object,
  span: Span,
  initializeResult: unknown,
): string | undefined {
  const version = ownValue(initializeResult, 'protocolVersion');
  if (typeof version !== 'string' || version.length === 0) return undefined;
  protocolVersions.set(protocol, version);
  span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, version);
  return version;
}

/** What a response hook is given, either side. */
export function responseInfo(
  side: McpResponseInfo['side'],
  call: { method: string; target: string | undefined; params: unknown },
  outcome: { error: unknown } | { result: unknown },
  failure: ToolFailure | undefined,
): McpResponseInfo {
  const info: McpResponseInfo = {
    side,
    method: call.method,
    target: call.target,
    params: call.params,
  };
  if ('error' in outcome) info.error = outcome.error;
  else info.result = outcome.result;
  if (failure !== undefined) info.failure = failure;
  return info;
}
