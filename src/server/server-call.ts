import {
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import type { JsonRpcMessage, ResolvedConfig, TelemetrySource } from '../internal-types.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_MCP_TOOL_CALL_ATTEMPT,
  ATTR_MCP_TOOL_FAILURE_SOURCE,
  ATTR_RPC_RESPONSE_STATUS_CODE,
} from '../semconv.js';
import {
  randomTraceLikeId,
  tryClassifier,
  failureFromClassification,
  classifyErrorResult,
  redactedText,
  readToolFailureMeta,
  rulePackFor,
  carriesExtensions,
  withDeclaration,
} from '@omcp/tool-failure';
import { isToolFailureError, readToolFailure } from '@omcp/tool-failure';
import type { ErrorClassifier, ToolFailure, ToolFailureReading } from '@omcp/tool-failure';
import {
  operationAttributes,
  setRequestAttributes,
  spanNameOf,
  targetOf,
  withAttributes,
} from '../shared/attributes.js';
import { secondsSince } from '../shared/metrics.js';
import { extractFromParams } from '../shared/propagation.js';
import {
  capturePayload,
  negotiatedVersion,
  recordOutputs,
  recordToolResult,
  rememberNegotiatedVersion,
  requestVersion,
  responseInfo,
  runHook,
  transportVersion,
} from '../shared/record.js';
import { relayed, relaying } from '../shared/relayed.js';
import { attemptOfMeta } from '../shared/attempt-meta.js';
import { copyWith, field, isRecord, ownString, ownValue } from '@omcp/tool-failure/wire';
import { truncate } from '../shared/truncate.js';
import { CALLER_ERRORS } from '@omcp/tool-failure/wire';
import { CallContext, release, serverCallTraceId, type ServerCall } from './call-context.js';
import { recordDiagnostics } from './failure-log.js';
import { parentFor } from './parenting.js';

/**
 * Starts the SERVER span of one incoming request (a message with a method and an id), parented
 * on the caller's context from `params._meta` as the trust setting allows, with the request's
 * attributes; runs the request hook. `transport` is what the request came through (its class
 * and session id become attributes); `protocol` is the object that negotiates the version.
 * Undefined for anything else (notifications, responses).
 */
export function startServerCall(
  source: TelemetrySource,
  protocol: object,
  transport: unknown,
  message: JsonRpcMessage,
  extra: unknown,
): ServerCall | undefined {
  if (!isRecord(message)) return undefined;
  const method = field(message, 'method');
  const id = field(message, 'id');
  if (typeof method !== 'string' || id === undefined || id === null) return undefined;
  const config = source.config();
  const params = field(message, 'params');
  const target = targetOf(method, params);
  // A session learned the version at `initialize` (whose own params name the one asked for);
  // 2026-07-28 names it in every request; a stateless server has only what its transport
  // passed. The session's is read first: it costs no read of the request.
  const version =
    negotiatedVersion(protocol) ??
    requestVersion(params) ??
    (method === 'initialize' ? ownString(params, 'protocolVersion') : undefined) ??
    transportVersion(extra);
  const attrs = operationAttributes(transport, method, target, version);

  const ambient = context.active();
  const { parent, links, root } = parentFor(
    ambient,
    extractFromParams(params),
    config.trustIncomingContext,
  );
  const span = source
    .tracer()
    .startSpan(
      spanNameOf(method, target),
      { kind: SpanKind.SERVER, attributes: attrs, links, root },
      parent,
    );
  setRequestAttributes(span, method, params, id, transport);
  if (method === 'tools/call') {
    // A retrying caller marks attempts after the first: the operator sees a retry as a retry.
    const attempt = attemptOfMeta(params);
    if (attempt !== undefined) span.setAttribute(ATTR_MCP_TOOL_CALL_ATTEMPT, attempt);
    capturePayload(span, config, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, params, 'arguments');
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
  if (config.requestHook !== undefined) {
    runHook(source, config.requestHook, span, { side: 'server', method, target, params });
  }
  return call;
}

/**
 * Ends `call` with its response `message`: records the result or error on the span and the
 * duration histogram, runs the response hook. Returns the message to send: for an error result
 * without a failure object, a copy that has one.
 */
export function finishServerCall(
  source: TelemetrySource,
  protocol: object,
  call: ServerCall,
  message: JsonRpcMessage,
): JsonRpcMessage {
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
        let isError = false;
        if (isRecord(result) && result.isError === true) {
          isError = true;
          const completed = completeToolResult(source, protocol, call, result);
          if (completed.result !== result) outgoing = { ...message, result: completed.result };
          result = completed.result;
          reading = completed.reading ?? readToolFailure(result, { metaKey: config.metaKey });
        } else {
          const meta = ownValue(result, '_meta');
          if (meta !== undefined) reading = readToolFailureMeta(meta, false, config.metaKey);
        }
        recordOutputs(call.span, config, result);
        const recorded = recordToolResult(
          source,
          call.span,
          call.attrs,
          isError,
          reading,
          'server',
        );
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
        } else {
          capturePayload(call.span, config, ATTR_GEN_AI_TOOL_CALL_RESULT, result);
        }
      } else {
        if (call.method === 'initialize') rememberNegotiatedVersion(protocol, call.span, result);
        const declared = declareExtension(config, protocol, call.method, result);
        if (declared !== result) {
          outgoing = { ...message, result: declared };
          result = declared;
        }
      }
    }
    if (config.responseHook !== undefined) {
      const info = responseInfo(
        'server',
        call,
        error !== undefined ? { error } : { result },
        failure,
      );
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
  protocol: object,
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
  const failure = failureFromClassification(
    classifyErrorResult(call.thrown, result, classifierFor(config, call, protocol), {
      outputs: config.toolResultOutputs,
    }),
    // With no tracer provider the span is a no-op with an all-zero trace ID: use a random ID then.
    serverCallTraceId(call) ?? randomTraceLikeId(),
  );
  call.span.setAttribute(ATTR_MCP_TOOL_FAILURE_SOURCE, 'instrumentation');
  const meta = isRecord(result._meta) ? result._meta : {};
  const completed = copyWith(result, '_meta', copyWith(meta, config.metaKey, failure));
  if (
    config.redactThrownErrorText &&
    call.thrown !== undefined &&
    call.thrownClass === undefined &&
    !isToolFailureError(call.thrown)
  ) {
    // The SDK put the thrown error's own message in the result; keep it on the server only. A
    // framework's caller-facing error (fastmcp's UserError) was written for the caller: it stays.
    completed.content = [{ type: 'text', text: redactedText(failure) }];
  }
  // Built here from the package's own classifier: re-reading it would only repeat the work.
  // A user classifier may return anything, so its failures are read like any other.
  if (
    config.errorClassifier !== undefined ||
    config.rules !== undefined ||
    isToolFailureError(call.thrown)
  )
    return { result: completed };
  return { result: completed, reading: { status: 'valid', failure, problems: [] } };
}

/**
 * The result of `initialize` or `server/discover` with the extension declared in its
 * capabilities (a copy), for the revisions that define the field, unless turned off or the
 * server relays another's capabilities (the proxy). Anything else is returned as it is.
 */
function declareExtension(
  config: ResolvedConfig,
  protocol: object,
  method: string,
  result: unknown,
): unknown {
  if (!config.declareExtension || !carriesExtensions(method, result) || relaying.has(protocol))
    return result;
  return withDeclaration(result, config.metaKey);
}

/** A thrown error's own message, capped for a status description; never throws. */
function thrownMessage(thrown: unknown): string | undefined {
  const message = ownValue(thrown, 'message');
  return typeof message === 'string' && message.length > 0 ? truncate(message, 256) : undefined;
}

/** Records a JSON-RPC error response; returns the metric attributes. */
function recordJsonRpcError(span: Span, opAttrs: Attributes, error: unknown): Attributes {
  const code = ownValue(error, 'code');
  const message = ownString(error, 'message');
  if (typeof code !== 'number') return opAttrs;
  const codeText = String(code);
  span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, codeText);
  if (CALLER_ERRORS.has(code))
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

/** Ends a call that gets no response (`errorType` says why). */
export function endCall(source: TelemetrySource, call: ServerCall, errorType: string): void {
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
 * The user's classifier, then the user's rules as data (which may match on the tool), then what
 * a framework said of the error the call noted, then the rule pack of the server's own
 * `serverInfo.name`, as one; the built-in rules come after them.
 */
function classifierFor(
  config: ResolvedConfig,
  call: ServerCall,
  protocol: object,
): ErrorClassifier | undefined {
  const { errorClassifier: custom, rules } = config;
  const { target: tool, thrown, thrownClass } = call;
  const pack = config.builtInRulePacks ? rulePackFor(serverNameOf(protocol)) : undefined;
  if (rules === undefined && thrownClass === undefined && pack === undefined) return custom;
  return (error) => {
    const classified = custom === undefined ? undefined : tryClassifier(custom, error);
    if (classified !== undefined) return classified;
    const byRule = rules?.classify(error, tool);
    if (byRule !== undefined) return byRule;
    if (error === thrown && thrownClass !== undefined) return { ...thrownClass };
    return pack?.classify(error, tool);
  };
}

/** The name a server announces (`serverInfo.name`, in SDK 1.x and 2.x alike), if readable. */
function serverNameOf(protocol: object): string | undefined {
  return ownString(ownValue(protocol, '_serverInfo'), 'name');
}
