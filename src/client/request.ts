import {
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { attemptOf } from '../shared/attempt-context.js';
import type { ResolvedConfig, TelemetrySource } from '../internal-types.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_MCP_TOOL_CALL_ATTEMPT,
  ATTR_RPC_RESPONSE_STATUS_CODE,
} from '../semconv.js';
import { readToolFailureMeta } from '@omcp/tool-failure';
import type { ToolFailure } from '@omcp/tool-failure';
import {
  operationAttributes,
  setRequestAttributes,
  spanNameOf,
  targetOf,
} from '../shared/attributes.js';
import { rememberToolList } from '../shared/tool-annotations.js';
import { injectIntoParams } from '../shared/propagation.js';
import {
  capturePayload,
  recordOutputs,
  recordToolResult,
  rememberNegotiatedVersion,
  responseInfo,
  runHook,
} from '../shared/record.js';
import { copyWith, field, ownString, ownValue } from '@omcp/tool-failure/wire';
import { secondsSince } from '../shared/metrics.js';
import { truncate } from '../shared/truncate.js';
import { errorTypeOf, isJsonRpcCodeType } from '../shared/error-type.js';
import { recordPeer } from './peer.js';
import type { ClientShape } from './shapes.js';

/**
 * The request this code is handing to the original `request` right now. A second layer of
 * patching (manual on an instance over auto on the prototype) is called synchronously with
 * exactly this object and passes it through untouched. A variable, not a set or a context
 * value: nothing is allocated or kept per call.
 */
let handingOver: unknown;

/** A client's method that sends one request (`shape` says where its arguments keep what). */
export type RequestFn = (this: object, first: unknown, ...rest: unknown[]) => Promise<unknown>;

/** One outgoing request being traced: what its response is recorded with. */
interface TracedRequest {
  /** The client, and the arguments of its call (where the caller's abort signal is). */
  readonly self: object;
  readonly first: unknown;
  readonly rest: unknown[];
  readonly method: string;
  readonly params: unknown;
  readonly target: string | undefined;
  readonly attrs: Attributes;
  readonly start: number;
  readonly span: Span;
  readonly spanCtx: Context;
  /** What goes to the original `request`: `first`, or a copy carrying the trace context. */
  readonly outgoing: unknown;
}

/**
 * Traces one outgoing request: a CLIENT span, context injected into a copy of
 * `params._meta`, the result or error recorded. Any failure of the instrumentation
 * falls back to calling `original` untouched; the caller's result is never changed.
 * `shape` is the client implementation: the MCP SDK's `Protocol` or the AI SDK's client.
 */
export function traceOutgoingRequest(
  source: TelemetrySource,
  shape: ClientShape,
  self: object,
  original: RequestFn,
  first: unknown,
  rest: unknown[],
): Promise<unknown> {
  if (handingOver !== undefined && first === handingOver) {
    handingOver = undefined;
    return original.call(self, first, ...rest);
  }
  let traced: TracedRequest | undefined;
  try {
    traced = startRequest(source, shape, self, first, rest, context.active());
    if (traced === undefined) return original.call(self, first, ...rest);
  } catch (err) {
    source.diag.error('mcp: could not start a client span', err);
    return original.call(self, first, ...rest);
  }
  const request = traced;
  let pending: Promise<unknown>;
  handingOver = request.outgoing;
  try {
    pending = context.with(request.spanCtx, () => original.call(self, request.outgoing, ...rest));
  } catch (error) {
    finishRequest(source, shape, request, undefined, error, true);
    throw error;
  } finally {
    handingOver = undefined;
  }
  return pending.then(
    (result) => {
      finishRequest(source, shape, request, result, undefined, false);
      return result;
    },
    (error: unknown) => {
      finishRequest(source, shape, request, undefined, error, true);
      throw error;
    },
  );
}

/**
 * Starts the CLIENT span of the request in `first` and prepares what goes out (the trace
 * context in a copy of its params), or `undefined` for something that is not a request.
 */
function startRequest(
  source: TelemetrySource,
  shape: ClientShape,
  self: object,
  first: unknown,
  rest: unknown[],
  active: Context,
): TracedRequest | undefined {
  const request = shape.requestOf(first);
  const method = field(request, 'method');
  if (typeof method !== 'string') return undefined;
  const params = field(request, 'params');
  const config = source.config();
  const target = targetOf(method, params);
  const transport = shape.transportOf(self);
  // What this client negotiated, else what the request itself names: the version the
  // request goes out with.
  const version = shape.versionOf(self, method, params);
  const attrs = operationAttributes(transport, method, target, version);
  const start = performance.now();
  const span = source
    .tracer()
    .startSpan(spanNameOf(method, target), { kind: SpanKind.CLIENT, attributes: attrs }, active);
  setRequestAttributes(span, method, params, shape.nextIdOf(self), transport);
  if (method === 'tools/call') {
    const attempt = attemptOf(active);
    if (attempt !== undefined) span.setAttribute(ATTR_MCP_TOOL_CALL_ATTEMPT, attempt);
    capturePayload(span, config, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, params, 'arguments');
  }
  const spanCtx = trace.setSpan(active, span);
  const outgoing = config.propagateContext
    ? shape.withRequest(
        first,
        copyWith(request as object, 'params', injectIntoParams(params, spanCtx)),
      )
    : first;
  if (config.requestHook !== undefined) {
    runHook(source, config.requestHook, span, { side: 'client', method, target, params });
  }
  return { self, first, rest, method, params, target, attrs, start, span, spanCtx, outgoing };
}

/**
 * Records the response (`result`, or the `error` when `failed`) on the span, runs the response
 * hook, records the duration and ends the span; never throws.
 */
function finishRequest(
  source: TelemetrySource,
  shape: ClientShape,
  traced: TracedRequest,
  result: unknown,
  error: unknown,
  failed: boolean,
): void {
  const { self, span, method, target, params, attrs } = traced;
  try {
    const config = source.config();
    let metricAttrs = attrs;
    let failure: ToolFailure | undefined;
    recordPeer(
      span,
      shape,
      self,
      method,
      failed ? undefined : result,
      config.metaKey,
      config.maxAttributeLength,
    );
    if (failed) {
      metricAttrs = recordClientError(
        span,
        attrs,
        error,
        shape.signalOf(traced.first, traced.rest),
      );
    } else if (method === 'tools/call') {
      ({ metricAttrs, failure } = recordCallResult(source, config, span, attrs, result));
    } else if (method === 'tools/list') {
      rememberToolList(self, result);
    } else if (method === 'initialize') {
      rememberNegotiatedVersion(self, span, result);
    }
    completeClientReply(source, config, span, {
      call: { method, target, params },
      reply: failed ? { error } : { result },
      failure,
      metricAttrs,
      start: traced.start,
      ctx: traced.spanCtx,
    });
  } catch (err) {
    source.diag.error('mcp: could not record a client response', err);
  } finally {
    span.end();
  }
}

/** What every client reply ends with, for a request or a connect-time probe. */
export interface ClientReply {
  call: { method: string; target: string | undefined; params: unknown };
  reply: { result: unknown } | { error: unknown };
  failure: ToolFailure | undefined;
  metricAttrs: Attributes;
  /** `performance.now()` when the request was sent. */
  start: number;
  ctx: Context;
}

/** The end of every client reply: the response hook, then the duration metric. */
export function completeClientReply(
  source: TelemetrySource,
  config: ResolvedConfig,
  span: Span,
  r: ClientReply,
): void {
  if (config.responseHook !== undefined)
    runHook(source, config.responseHook, span, responseInfo('client', r.call, r.reply, r.failure));
  source
    .instruments()
    .clientDuration.record(secondsSince(r.start, performance.now()), r.metricAttrs, r.ctx);
}

/** A `tools/call` result onto the span: its outputs, its failure or its payload. */
function recordCallResult(
  source: TelemetrySource,
  config: ResolvedConfig,
  span: Span,
  attrs: Attributes,
  result: unknown,
): { metricAttrs: Attributes; failure: ToolFailure | undefined } {
  // Each read once, as own data (the result is the server's, or a caller's object over an
  // in-memory transport). No _meta, nothing to read: the common success path skips the
  // reader.
  const meta = ownValue(result, '_meta');
  const isError = ownValue(result, 'isError') === true;
  const reading =
    meta === undefined ? undefined : readToolFailureMeta(meta, isError, config.metaKey);
  recordOutputs(span, config, result);
  const recorded = recordToolResult(source, span, attrs, isError, reading, 'client');
  if (recorded !== undefined) return recorded;
  capturePayload(span, config, ATTR_GEN_AI_TOOL_CALL_RESULT, result);
  return { metricAttrs: attrs, failure: undefined };
}

/**
 * Records a request that failed with an error (not a result): a thrown error, a JSON-RPC error
 * object, or no reply at all (`errorType` given); returns the metric attributes.
 */
export function recordClientError(
  span: Span,
  opAttrs: Attributes,
  error: unknown,
  signal: unknown,
  errorType: string = errorTypeOf(error, signal instanceof AbortSignal && signal.aborted),
): Attributes {
  const metricAttrs: Attributes = { ...opAttrs };
  if (isJsonRpcCodeType(errorType)) {
    span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, errorType);
    metricAttrs[ATTR_RPC_RESPONSE_STATUS_CODE] = errorType;
  }
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  metricAttrs[ATTR_ERROR_TYPE] = errorType;
  const message = error instanceof Error ? error.message : ownString(error, 'message');
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: typeof message === 'string' ? truncate(message, 256) : undefined,
  });
  return metricAttrs;
}
