import { AsyncLocalStorage } from 'node:async_hooks';
import {
  context,
  createContextKey,
  isSpanContextValid,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { ErrorClassification } from '@omcp/tool-failure';

/** What the server side knows of one incoming request while it runs. */
export interface ServerCall {
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
  /**
   * What a server framework says of `thrown` (fastmcp's `UserError`: a refusal its text tells
   * the caller), used after the user's classifier and rules and before the built-in rules.
   */
  thrownClass?: ErrorClassification;
  done: boolean;
}

export const CALL_KEY = createContextKey('omcp server call');

/**
 * The context a server call runs in: the span's context plus the call, found by the handler's
 * error capture with `context.active().getValue(CALL_KEY)`. A thin view over the span's context
 * rather than a `setValue` (which copies the context's map) or a map from span to call (a
 * long-lived map that fills and empties on every request costs far more per set and delete
 * than the whole lookup is worth). Contexts derived from it keep the call.
 */
export class CallContext implements Context {
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
export const fallbackCall = new AsyncLocalStorage<ServerCall>();

export function runningCall(): ServerCall | undefined {
  const call =
    (context.active().getValue(CALL_KEY) as ServerCall | undefined) ?? fallbackCall.getStore();
  return call?.done === false ? call : undefined;
}

/**
 * Notes an error thrown by a handler or tool callback on `call` (by default the running server
 * call), with what a framework knows of it; the first error noted is the one kept.
 */
export function noteThrown(
  error: unknown,
  classification?: ErrorClassification,
  call: ServerCall | undefined = runningCall(),
): void {
  if (call === undefined || call.done || call.thrown !== undefined) return;
  call.thrown = error;
  if (classification !== undefined) call.thrownClass = classification;
}

/** The trace ID of `call` (by default the running server call), if it has a valid span. */
export function serverCallTraceId(
  call: ServerCall | undefined = runningCall(),
): string | undefined {
  const spanContext = call?.span.spanContext();
  return spanContext !== undefined && isSpanContextValid(spanContext)
    ? spanContext.traceId
    : undefined;
}

/**
 * Marks a call ended and drops what only the open call needed: a context derived from the call's
 * (held by a timer the tool started, say) keeps the small call object, not the request.
 */
export function release(call: ServerCall): void {
  call.done = true;
  call.params = undefined;
  call.thrown = undefined;
  // Set by a framework's patch only: other calls keep their shape.
  if (call.thrownClass !== undefined) call.thrownClass = undefined;
}
