import { AsyncLocalStorage } from 'node:async_hooks';
import {
  SpanKind,
  SpanStatusCode,
  context,
  createContextKey,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { SEVERITY_ERROR, SEVERITY_WARN } from '../shared/logs.js';
import type { JsonRpcMessage, TelemetrySource, TransportLike } from '../internal-types.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_TOOL_FAILURE_SOURCE,
  ATTR_MCP_TOOL_FAILURE_SUPPRESSED_RECORDS,
  ATTR_RPC_RESPONSE_STATUS_CODE,
} from '../semconv.js';
import { toolFailureResult } from '../tool-failure/build.js';
import { classifyError } from '../tool-failure/classify.js';
import { randomTraceLikeId } from '../tool-failure/correlation.js';
import { isToolFailureError } from '../tool-failure/error.js';
import { readToolFailure } from '../tool-failure/read.js';
import type {
  ErrorClassification,
  ToolFailure,
  ToolFailureReading,
} from '../tool-failure/types.js';
import {
  operationAttributes,
  setRequestAttributes,
  spanNameOf,
  targetOf,
  withAttributes,
} from '../shared/attributes.js';
import { exceptionTypeOf, writeExceptionAttributes } from '../shared/exception.js';
import { failureAttributes } from '../shared/failure-attributes.js';
import { secondsSince } from '../shared/metrics.js';
import { extractFromParams } from '../shared/propagation.js';
import { recordToolResult, runHook, safeJson } from '../shared/record.js';
import { OpenCalls } from './open-calls.js';
import { copyWith, field, isRecord, ownString, ownValue } from '../shared/safe.js';
import { truncate } from '../shared/truncate.js';
import type { McpResponseInfo } from '../types.js';

/** What the server side knows of one incoming request while it runs. */
interface ServerCall {
  span: Span;
  ctx: Context;
  method: string;
  target: string | undefined;
  params: unknown;
  /** The operation's shared, frozen attributes (`operationAttributes`): the metric attributes. */
  attrs: Attributes;
  start: number;
  /** The error a handler or tool callback threw, caught before the SDK flattens it. */
  thrown?: unknown;
  done: boolean;
}

const CALL_KEY = createContextKey('omcp server call');

/**
 * The context a server call runs in: the span's context plus the call, found by the handler's
 * error capture with `context.active().getValue(CALL_KEY)`. A thin view over the span's context
 * rather than a `setValue` (which copies the context's map) or a map from span to call (a
 * long-lived map that fills and empties on every request costs far more per set and delete
 * than the whole lookup is worth). Contexts derived from it keep the call.
 */
class CallContext implements Context {
  constructor(
    private readonly base: Context,
    private readonly call: ServerCall,
  ) {}
  getValue(key: symbol): unknown {
    return key === CALL_KEY ? this.call : this.base.getValue(key);
  }
  setValue(key: symbol, value: unknown): Context {
    return new CallContext(this.base.setValue(key, value), this.call);
  }
  deleteValue(key: symbol): Context {
    return new CallContext(this.base.deleteValue(key), this.call);
  }
}

/**
 * The same, for processes with no OpenTelemetry context manager, where `context.with` does not
 * propagate: only then is this store used (an active AsyncLocalStorage costs every promise).
 */
const fallbackCall = new AsyncLocalStorage<ServerCall>();

function runningCall(): ServerCall | undefined {
  const call =
    (context.active().getValue(CALL_KEY) as ServerCall | undefined) ?? fallbackCall.getStore();
  return call?.done === false ? call : undefined;
}

const TAPPED = Symbol.for('omcp.mcp.tapped');
/** JSON-RPC codes the conventions do not count as server errors (#404). */
const NOT_SERVER_ERRORS = new Set([-32700, -32600, -32601, -32602, -32002]);
const protocolVersions = new WeakMap<object, string>();

/** Results a relaying proxy passes on: the server tap records them but never completes them. */
const relayed: WeakSet<object> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for('omcp.mcp.relayed')
] ??= new WeakSet<object>()) as WeakSet<object>;

/** Marks `result` as relayed from an upstream server, so no failure object is added to it here. */
export function markRelayed<T>(result: T): T {
  if (typeof result === 'object' && result !== null) relayed.add(result);
  return result;
}

/** Notes an error thrown by a handler or tool callback on the call running in `ctx`. */
export function noteThrown(error: unknown): void {
  const call = runningCall();
  if (call !== undefined && call.thrown === undefined) call.thrown = error;
}

/** The trace ID of the server call running in `ctx`, if any. */
export function serverCallTraceId(
  call: ServerCall | undefined = runningCall(),
): string | undefined {
  const spanContext = call?.span.spanContext();
  return spanContext !== undefined && isSpanContextValid(spanContext)
    ? spanContext.traceId
    : undefined;
}

/**
 * Taps a connected transport of a server-side (receiving) `Protocol`: one SERVER span per
 * incoming request, from the moment it arrives until its response is sent, so failures
 * the SDK produces before any handler runs are recorded too. The response for `tools/call`
 * may gain a failure object (a copy of the result; the SDK's own object is not touched).
 */
export function tapTransport(
  source: TelemetrySource,
  protocol: object,
  transport: TransportLike,
): void {
  if (typeof transport !== 'object' || transport === null) return;
  const marked = transport as unknown as Record<symbol, unknown>;
  if (marked[TAPPED] === true) return;
  const calls = new OpenCalls<ServerCall>();
  const onmessage = transport.onmessage;
  const send = transport.send;
  const onclose = transport.onclose;
  if (typeof onmessage !== 'function' || typeof send !== 'function') return;
  marked[TAPPED] = true;

  transport.onmessage = function tappedOnMessage(
    this: unknown,
    message: JsonRpcMessage,
    extra?: unknown,
  ): void {
    if (!source.active()) return onmessage.call(this, message, extra);
    let call: ServerCall | undefined;
    try {
      call = startServerCall(source, protocol, transport, calls, message);
    } catch (err) {
      source.diag.error('mcp: could not start a server span', err);
    }
    if (call === undefined) return onmessage.call(this, message, extra);
    const started = call;
    return context.with(started.ctx, () =>
      context.active() === started.ctx
        ? onmessage.call(this, message, extra)
        : fallbackCall.run(started, () => onmessage.call(this, message, extra)),
    );
  };

  transport.send = function tappedSend(
    this: unknown,
    message: JsonRpcMessage,
    options?: unknown,
  ): Promise<void> {
    let outgoing = message;
    try {
      outgoing = finishServerCall(source, protocol, calls, message);
    } catch (err) {
      source.diag.error('mcp: could not record a server response', err);
    }
    return send.call(this, outgoing, options);
  };

  transport.onclose = function tappedOnClose(this: unknown): void {
    try {
      for (const call of calls.values()) endCall(source, call, 'transport_closed');
      calls.clear();
    } catch (err) {
      source.diag.error('mcp: could not end open server spans', err);
    }
    return onclose?.call(this);
  };
}

function startServerCall(
  source: TelemetrySource,
  protocol: object,
  transport: TransportLike,
  calls: OpenCalls<ServerCall>,
  message: JsonRpcMessage,
): ServerCall | undefined {
  if (!isRecord(message)) return undefined;
  const method = field(message, 'method');
  const id = field(message, 'id');
  if (typeof method !== 'string') return undefined;
  if (id === undefined || id === null) {
    if (method === 'notifications/cancelled') {
      const requestId = ownValue(ownValue(message, 'params'), 'requestId');
      const call = calls.get(requestId);
      if (call !== undefined) {
        calls.delete(requestId);
        endCall(source, call, 'cancelled');
      }
    }
    return undefined;
  }
  const config = source.config();
  const params = field(message, 'params');
  const target = targetOf(method, params);
  const version = protocolVersions.get(protocol) ?? ownString(params, 'protocolVersion');
  const attrs = operationAttributes(transport, method, target, version);

  const ambient = context.active();
  const ambientSpan = trace.getSpanContext(ambient);
  const remote = extractFromParams(params);
  const remoteSpan = remote === undefined ? undefined : trace.getSpanContext(remote);
  let links: Link[] | undefined;
  let parent: Context = ambient;
  if (remote !== undefined && remoteSpan !== undefined) {
    if (config.trustIncomingContext) {
      // Parent on the caller's MCP context; keep the transport's own span (e.g. HTTP) as a link.
      parent = remote;
      if (ambientSpan !== undefined && ambientSpan.traceId !== remoteSpan.traceId)
        (links ??= []).push({ context: ambientSpan });
    } else {
      parent = trace.deleteSpan(ambient);
      (links ??= []).push({ context: remoteSpan });
      if (ambientSpan !== undefined) (links ??= []).push({ context: ambientSpan });
    }
  }
  const span = source.tracer().startSpan(
    spanNameOf(method, target),
    {
      kind: SpanKind.SERVER,
      attributes: attrs,
      links,
      root: !config.trustIncomingContext && remoteSpan !== undefined,
    },
    parent,
  );
  setRequestAttributes(span, method, params, id, transport);
  if (config.captureToolPayloads && method === 'tools/call') {
    span.setAttribute(
      ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
      truncate(safeJson(ownValue(params, 'arguments')), 16 * config.maxAttributeLength),
    );
  }
  const call: ServerCall = {
    span,
    ctx: ambient,
    method,
    target,
    params,
    attrs,
    start: performance.now(),
    done: false,
  };
  call.ctx = new CallContext(trace.setSpan(parent, span), call);
  const previous = calls.get(id);
  if (previous !== undefined) endCall(source, previous, 'superseded');
  calls.set(id, call);
  if (config.requestHook !== undefined) {
    runHook(source, config.requestHook, span, { side: 'server', method, target, params });
  }
  return call;
}

function finishServerCall(
  source: TelemetrySource,
  protocol: object,
  calls: OpenCalls<ServerCall>,
  message: JsonRpcMessage,
): JsonRpcMessage {
  if (!isRecord(message) || 'method' in message) return message;
  const id = field(message, 'id');
  const call = calls.get(id);
  if (call === undefined) return message;
  calls.delete(id);
  const config = source.config();
  let metricAttrs = call.attrs;
  let outgoing = message;
  let result: unknown;
  let failure: ToolFailure | undefined;
  const error = field(message, 'error');
  try {
    if (error !== undefined) {
      metricAttrs = recordJsonRpcError(call.span, call.attrs, error);
      if (call.thrown !== undefined) recordDiagnostics(source, call, call.thrown, undefined);
    } else {
      result = field(message, 'result');
      if (call.method === 'tools/call') {
        let reading: ToolFailureReading | undefined;
        if (isRecord(result) && result.isError === true) {
          const completed = completeToolResult(source, call, result);
          if (completed.result !== result) outgoing = { ...message, result: completed.result };
          result = completed.result;
          reading = completed.reading ?? readToolFailure(result, { metaKey: config.metaKey });
        } else if (ownValue(result, '_meta') !== undefined) {
          reading = readToolFailure(result, { metaKey: config.metaKey });
        }
        const recorded = recordToolResult(source, call.span, call.attrs, result, reading, 'server');
        if (recorded !== undefined) {
          metricAttrs = recorded.metricAttrs;
          failure = recorded.failure;
          if (call.thrown !== undefined) {
            // The thrown message as the status description: trace views show it beside the
            // span; the stack and the cause are in the failure log record.
            const description = thrownMessage(call.thrown);
            if (description !== undefined)
              call.span.setStatus({ code: SpanStatusCode.ERROR, message: description });
          }
          if (failure !== undefined || call.thrown !== undefined)
            recordDiagnostics(source, call, call.thrown, failure);
        } else if (config.captureToolPayloads) {
          call.span.setAttribute(
            ATTR_GEN_AI_TOOL_CALL_RESULT,
            truncate(safeJson(result), 16 * config.maxAttributeLength),
          );
        }
      } else if (call.method === 'initialize') {
        const v = ownString(result, 'protocolVersion');
        if (v !== undefined) {
          protocolVersions.set(protocol, v);
          call.span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, v);
        }
      }
    }
    if (config.responseHook !== undefined) {
      const info: McpResponseInfo = {
        side: 'server',
        method: call.method,
        target: call.target,
        params: call.params,
      };
      if (error !== undefined) info.error = error;
      else info.result = result;
      if (failure !== undefined) info.failure = failure;
      runHook(source, config.responseHook, call.span, info);
    }
    source
      .instruments()
      .serverDuration.record(secondsSince(call.start, performance.now()), metricAttrs, call.ctx);
  } finally {
    release(call);
    call.span.end();
  }
  return outgoing;
}

/**
 * For an error result without a failure object, adds one (when configured): the thrown
 * error's classification, or the SDK's own pre-handler failure (unknown tool, invalid
 * arguments), with the span's trace ID as `correlationId`. Returns the result to send.
 */
function completeToolResult(
  source: TelemetrySource,
  call: ServerCall,
  result: Record<string, unknown>,
): { result: unknown; reading?: ToolFailureReading } {
  const config = source.config();
  if (relayed.has(result)) {
    call.span.setAttribute(ATTR_MCP_TOOL_FAILURE_SOURCE, 'upstream');
    return { result };
  }
  const reading: ToolFailureReading = readToolFailure(result, { metaKey: config.metaKey });
  if (reading.status !== 'absent') {
    call.span.setAttribute(ATTR_MCP_TOOL_FAILURE_SOURCE, 'server');
    return { result, reading };
  }
  if (!config.addFailureObjects) return { result, reading };
  const classification = classifyToolError(source, call.thrown, result);
  const failure: ToolFailure = {
    class: classification.class,
    code: classification.code,
    // With no tracer provider the span is a no-op with an all-zero trace ID: use a random ID then.
    correlationId: serverCallTraceId(call) ?? randomTraceLikeId(),
  };
  if (classification.retryable !== undefined) failure.retryable = classification.retryable;
  if (classification.retryNotBefore !== undefined && classification.retryable === true)
    failure.retryNotBefore = classification.retryNotBefore;
  if (classification.agentGuidance !== undefined)
    failure.agentGuidance = classification.agentGuidance;
  call.span.setAttribute(ATTR_MCP_TOOL_FAILURE_SOURCE, 'instrumentation');
  const meta = isRecord(result._meta) ? result._meta : {};
  const completed = copyWith(result, '_meta', copyWith(meta, config.metaKey, failure));
  if (
    config.redactThrownErrorText &&
    call.thrown !== undefined &&
    !isToolFailureError(call.thrown)
  ) {
    // The SDK put the thrown error's own message in the result; keep it on the server only.
    completed.content = [{ type: 'text', text: redactedText(failure) }];
  }
  // Built here from the package's own classifier: re-reading it would only repeat the work.
  // A user classifier may return anything, so its failures are read like any other.
  if (config.errorClassifier !== undefined || isToolFailureError(call.thrown))
    return { result: completed };
  return { result: completed, reading: { status: 'valid', failure, problems: [] } };
}

/** A thrown error's own message, capped for a status description; never throws. */
function thrownMessage(thrown: unknown): string | undefined {
  const message = ownValue(thrown, 'message');
  return typeof message === 'string' && message.length > 0 ? truncate(message, 256) : undefined;
}

/** The short text that replaces a thrown error's message when `redactThrownErrorText` is on. */
export function redactedText(failure: ToolFailure): string {
  return `The tool failed (${failure.class}: ${failure.code}). Reference: ${failure.correlationId}.`;
}

const SDK_ERROR_TEXT = /^MCP error (-?\d+): (.*)$/s;

function classifyToolError(
  source: TelemetrySource,
  thrown: unknown,
  result: Record<string, unknown>,
): ErrorClassification {
  const classifier = source.config().errorClassifier;
  if (thrown !== undefined) return classifyError(thrown, { classifier });
  // No callback threw: the SDK itself refused the call before or around the handler, and
  // says so only in text ("MCP error -32602: Tool x not found").
  const content = result.content;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const text = ownString(first, 'text');
  const match = text === undefined ? null : SDK_ERROR_TEXT.exec(text);
  if (match !== null) {
    const code = Number(match[1]);
    const message = match[2] ?? '';
    if (code === -32602 && /^Tool \S.* (not found|disabled)$/.test(message)) {
      return { class: 'capability', code: 'capability_unsupported' };
    }
    return classifyError({ code }, { classifier });
  }
  return classifyError(undefined, { classifier });
}

/**
 * Keeps the verbose detail on the server: a log record in the span's context with the failure
 * and the thrown error's `exception.*` attributes, and (when configured) an `exception` span event.
 */
function recordDiagnostics(
  source: TelemetrySource,
  call: ServerCall,
  thrown: unknown,
  failure: ToolFailure | undefined,
): void {
  try {
    recordDiagnosticsUnsafe(source, call, thrown, failure);
  } catch (err) {
    // A thrown value with hostile accessors: the response and the span go on without the detail.
    source.diag.error('mcp: could not record the detail of a thrown error', err);
  }
}

function recordDiagnosticsUnsafe(
  source: TelemetrySource,
  call: ServerCall,
  thrown: unknown,
  failure: ToolFailure | undefined,
): void {
  const config = source.config();
  const type = thrown instanceof Error ? exceptionTypeOf(thrown) : undefined;
  // The log budget first: a record left out spends no stack token. -1: left out; else how many
  // records of this tool, code and type were left out before this one.
  const suppressed = config.emitFailureLogs
    ? config.logBudget.take(call.target, `${failure?.code ?? ''}\u0000${type ?? ''}`)
    : -1;
  const withStack =
    type !== undefined &&
    (suppressed >= 0 || config.exceptionSpanEvents) &&
    config.stackBudget.take(call.target, type) >= 0;
  if (config.exceptionSpanEvents) {
    if (thrown instanceof Error)
      call.span.recordException(withStack ? thrown : { name: type, message: thrown.message });
    else if (thrown !== undefined)
      call.span.recordException({ name: 'NonError', message: truncate(safeJson(thrown), 1024) });
  }
  if (suppressed < 0) return;
  const attributes: Attributes =
    failure === undefined ? {} : failureAttributes(failure, config.maxAttributeLength);
  writeExceptionAttributes(attributes, thrown, withStack);
  if (call.target !== undefined) attributes['gen_ai.tool.name'] = call.target;
  if (suppressed > 0) attributes[ATTR_MCP_TOOL_FAILURE_SUPPRESSED_RECORDS] = suppressed;
  source.logger().emit({
    severityNumber:
      failure?.class === 'reliability' || failure === undefined ? SEVERITY_ERROR : SEVERITY_WARN,
    severityText: failure?.class === 'reliability' || failure === undefined ? 'ERROR' : 'WARN',
    body: `${spanNameOf(call.method, call.target)} failed${failure === undefined ? '' : ` (${failure.class}/${failure.code}, correlationId ${failure.correlationId})`}`,
    attributes,
    context: call.ctx,
  });
}

/** Records a JSON-RPC error response; returns the metric attributes. */
function recordJsonRpcError(span: Span, opAttrs: Attributes, error: unknown): Attributes {
  const code = ownValue(error, 'code');
  const message = ownString(error, 'message');
  if (typeof code !== 'number') return opAttrs;
  const codeText = String(code);
  span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, codeText);
  if (NOT_SERVER_ERRORS.has(code))
    return withAttributes(opAttrs, { [ATTR_RPC_RESPONSE_STATUS_CODE]: codeText });
  span.setAttribute(ATTR_ERROR_TYPE, codeText);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: message === undefined ? undefined : truncate(message, 256),
  });
  return withAttributes(opAttrs, {
    [ATTR_RPC_RESPONSE_STATUS_CODE]: codeText,
    [ATTR_ERROR_TYPE]: codeText,
  });
}

/**
 * Marks a call ended and drops what only the open call needed: a context derived from the call's
 * (held by a timer the tool started, say) keeps the small call object, not the request.
 */
function release(call: ServerCall): void {
  call.done = true;
  call.params = undefined;
  call.thrown = undefined;
}

function endCall(source: TelemetrySource, call: ServerCall, errorType: string): void {
  if (call.done) return;
  release(call);
  call.span.setAttribute(ATTR_ERROR_TYPE, errorType);
  call.span.setStatus({ code: SpanStatusCode.ERROR });
  const metricAttrs = withAttributes(call.attrs, { [ATTR_ERROR_TYPE]: errorType });
  source
    .instruments()
    .serverDuration.record(secondsSince(call.start, performance.now()), metricAttrs, call.ctx);
  call.span.end();
}

/**
 * Wraps a request handler so that an error it throws is noted on the running call (with its
 * stack, for the server's diagnostics), and a thrown `ToolFailureError` from a `tools/call`
 * handler becomes exactly the failure result it describes.
 */
export function wrapRequestHandler<H extends (this: unknown, ...args: unknown[]) => unknown>(
  handler: H,
  source: TelemetrySource,
): H {
  const onError = (request: unknown, error: unknown): unknown => {
    noteThrown(error);
    // The request is looked at only when something was thrown: the success path reads nothing.
    if (ownValue(request, 'method') === 'tools/call' && isToolFailureError(error)) {
      try {
        const failure = error.toToolFailure(serverCallTraceId());
        return toolFailureResult(failure, error.message, { metaKey: source.config().metaKey });
      } catch {
        throw error;
      }
    }
    throw error;
  };
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    if (!source.active()) return handler.apply(this, args);
    try {
      const out = handler.apply(this, args);
      if (out instanceof Promise) return out.then(undefined, (error) => onError(args[0], error));
      return out;
    } catch (error) {
      return onError(args[0], error);
    }
  };
  return wrapped as H;
}

/** Notes an error on the running call and passes it on (a shared rejection handler). */
function noteAndRethrow(error: unknown): never {
  noteThrown(error);
  throw error;
}

/** Wraps a tool callback so that an error it throws is noted before the SDK flattens it to text. */
export function wrapToolCallback<F extends (this: unknown, ...args: unknown[]) => unknown>(
  callback: F,
): F {
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    try {
      const out = callback.apply(this, args);
      if (out instanceof Promise) return out.then(undefined, noteAndRethrow);
      return out;
    } catch (error) {
      noteThrown(error);
      throw error;
    }
  };
  return wrapped as F;
}
