import {
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import { attemptOf } from '../attempt-context.js';
import type { TelemetrySource } from '../internal-types.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_TOOL_CALL_ATTEMPT,
  ATTR_RPC_RESPONSE_STATUS_CODE,
} from '../semconv.js';
import { readToolFailure } from '../tool-failure/read.js';
import type { McpResponseInfo } from '../types.js';
import {
  metricAttributesOf,
  requestAttributes,
  spanNameOf,
  targetOf,
  addTransportAttributes,
} from './attributes.js';
import { rememberToolList } from './tool-annotations.js';
import { injectIntoParams } from './propagation.js';
import { recordToolResult, runHook, safeJson } from './record.js';
import { ownValue, isRecord } from './safe.js';
import { secondsSince } from './metrics.js';
import { truncate } from './truncate.js';

/**
 * Requests this code already traced, as passed down to the original `request`: a second layer
 * of patching (manual on an instance, auto on the prototype) passes them through untouched.
 * A set, not a context value, so no context is copied per call for it.
 */
const traced = new WeakSet<object>();
const protocolVersions = new WeakMap<object, string>();

/** The request function of an MCP `Protocol` (SDK 1.x and 2.x share this shape). */
export type RequestFn = (this: object, request: unknown, ...rest: unknown[]) => Promise<unknown>;

/**
 * Traces one outgoing request: a CLIENT span, context injected into a copy of
 * `params._meta`, the result or error recorded. Any failure of the instrumentation
 * falls back to calling `original` untouched; the caller's result is never changed.
 */
export function traceOutgoingRequest(
  source: TelemetrySource,
  self: object,
  original: RequestFn,
  request: unknown,
  rest: unknown[],
): Promise<unknown> {
  const active = context.active();
  if (typeof request === 'object' && request !== null && traced.has(request)) {
    return original.call(self, request, ...rest);
  }
  let span: Span;
  let spanCtx;
  let outgoing: unknown;
  let method: string;
  let attrs: Attributes;
  let start: number;
  let target: string | undefined;
  try {
    const m = ownValue(request, 'method');
    if (typeof m !== 'string') return original.call(self, request, ...rest);
    method = m;
    const params = ownValue(request, 'params');
    const config = source.config();
    target = targetOf(method, params);
    attrs = {
      // The SDK numbers requests from this counter; the next value is this request's id.
      ...requestAttributes(method, params, ownValue(self, '_requestMessageId')),
    };
    addTransportAttributes(attrs, ownValue(self, '_transport'));
    const version = protocolVersions.get(self);
    if (version !== undefined) attrs[ATTR_MCP_PROTOCOL_VERSION] = version;
    const attempt = attemptOf(active);
    if (attempt !== undefined && method === 'tools/call')
      attrs[ATTR_MCP_TOOL_CALL_ATTEMPT] = attempt;
    if (config.captureToolPayloads && method === 'tools/call') {
      attrs[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = truncate(
        safeJson(ownValue(params, 'arguments')),
        16 * config.maxAttributeLength,
      );
    }
    start = performance.now();
    span = source
      .tracer()
      .startSpan(spanNameOf(method, target), { kind: SpanKind.CLIENT, attributes: attrs }, active);
    spanCtx = trace.setSpan(active, span);
    outgoing = config.propagateContext
      ? { ...(request as object), params: injectIntoParams(params, spanCtx) }
      : request;
    if (typeof outgoing === 'object' && outgoing !== null) traced.add(outgoing);
    if (config.requestHook !== undefined) {
      runHook(source, config.requestHook, span, { side: 'client', method, target, params });
    }
  } catch (err) {
    source.diag.error('mcp: could not start a client span', err);
    return original.call(self, request, ...rest);
  }

  const finish = (info: Omit<McpResponseInfo, 'side' | 'method' | 'params'>): void => {
    try {
      const config = source.config();
      const metricAttrs = metricAttributesOf(attrs);
      if ('error' in info) {
        recordClientError(span, metricAttrs, info.error, rest);
      } else if (method === 'tools/call') {
        const reading = readToolFailure(info.result, { metaKey: config.metaKey });
        const failure = recordToolResult(source, span, metricAttrs, info.result, reading, 'client');
        if (failure !== undefined) info = { ...info, failure };
        if (config.captureToolPayloads && ownValue(info.result, 'isError') !== true) {
          span.setAttribute(
            ATTR_GEN_AI_TOOL_CALL_RESULT,
            truncate(safeJson(info.result), 16 * config.maxAttributeLength),
          );
        }
      } else if (method === 'tools/list') {
        rememberToolList(self, info.result);
      } else if (method === 'initialize') {
        const v = ownValue(info.result, 'protocolVersion');
        if (typeof v === 'string') {
          protocolVersions.set(self, v);
          span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, v);
        }
      }
      if (config.responseHook !== undefined) {
        runHook(source, config.responseHook, span, {
          side: 'client',
          method,
          target,
          params: ownValue(request, 'params'),
          ...info,
        });
      }
      source
        .instruments()
        .clientDuration.record(secondsSince(start, performance.now()), metricAttrs);
    } catch (err) {
      source.diag.error('mcp: could not record a client response', err);
    } finally {
      span.end();
    }
  };

  let pending: Promise<unknown>;
  try {
    pending = context.with(spanCtx, () => original.call(self, outgoing, ...rest));
  } catch (error) {
    finish({ error });
    throw error;
  }
  return pending.then(
    (result) => {
      finish({ result });
      return result;
    },
    (error: unknown) => {
      finish({ error });
      throw error;
    },
  );
}

function recordClientError(
  span: Span,
  metricAttrs: Attributes,
  error: unknown,
  rest: unknown[],
): void {
  const code = ownValue(error, 'code');
  // Request options follow the result schema in 1.x (`request(req, schema, options)`); in 2.x
  // the schema is optional and `callTool` passes the options second (`request(req, options)`).
  const signal = rest
    .slice(0, 2)
    .map((arg) => (isRecord(arg) ? ownValue(arg, 'signal') : undefined))
    .find((s) => s instanceof AbortSignal);
  let errorType: string;
  if (signal instanceof AbortSignal && signal.aborted) {
    errorType = 'cancelled';
  } else if (
    code === -32001 &&
    isRecord(ownValue(error, 'data')) &&
    'timeout' in (ownValue(error, 'data') as object)
  ) {
    errorType = 'timeout';
  } else if (typeof code === 'number' && Number.isInteger(code)) {
    errorType = String(code);
    span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, errorType);
    metricAttrs[ATTR_RPC_RESPONSE_STATUS_CODE] = errorType;
  } else {
    const name = error instanceof Error ? error.name : undefined;
    errorType = typeof name === 'string' && name.length > 0 ? name : '_OTHER';
  }
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  metricAttrs[ATTR_ERROR_TYPE] = errorType;
  const message = error instanceof Error ? error.message : undefined;
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: typeof message === 'string' ? truncate(message, 256) : undefined,
  });
}
