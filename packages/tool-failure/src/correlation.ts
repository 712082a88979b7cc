import { randomBytes } from 'node:crypto';

/**
 * What this module needs of an OpenTelemetry `Context`: a value by key. An `@opentelemetry/api`
 * `Context` is one.
 */
export interface ContextLike {
  getValue(key: symbol): unknown;
}

/**
 * Where every copy of `@opentelemetry/api` 1.x registers its global context manager: the data
 * model reads the active span through it instead of importing the API, so it runs, and builds
 * failures with random IDs, where OpenTelemetry is not installed.
 */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');
/** The key under which `@opentelemetry/api` keeps a context's span (`trace.setSpan`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
const INVALID_TRACE_ID = '00000000000000000000000000000000';
const INVALID_SPAN_ID = '0000000000000000';
const TRACE_ID = /^[0-9a-f]{32}$/i;
const SPAN_ID = /^[0-9a-f]{16}$/i;

interface ApiGlobal {
  context?: { active?(): ContextLike | undefined };
}

/** The active context of the registered context manager, or undefined (none registered). */
function activeContext(): ContextLike | undefined {
  try {
    const api = (globalThis as Record<symbol, ApiGlobal | undefined>)[OTEL_API_GLOBAL];
    return api?.context?.active?.();
  } catch {
    return undefined;
  }
}

/** The trace ID of the span in `ctx`, when its span context is valid (as the API judges it). */
function traceIdIn(ctx: ContextLike | undefined): string | undefined {
  try {
    const span = ctx?.getValue(SPAN_KEY) as
      { spanContext?(): { traceId?: unknown; spanId?: unknown } } | undefined;
    const sc = span?.spanContext?.();
    const { traceId, spanId } = sc ?? {};
    if (typeof traceId !== 'string' || typeof spanId !== 'string') return undefined;
    if (!TRACE_ID.test(traceId) || traceId === INVALID_TRACE_ID) return undefined;
    if (!SPAN_ID.test(spanId) || spanId === INVALID_SPAN_ID) return undefined;
    return traceId;
  } catch {
    return undefined;
  }
}

/**
 * The correlation ID for a failure raised in `ctx` (the active OpenTelemetry context by
 * default): the trace ID of its span, so the ID a user reports leads straight to the server's
 * trace; with no valid span, a fresh random ID of the same shape (32 lower-case hex), never
 * derived from request data.
 */
export function correlationIdFor(ctx: ContextLike | undefined = activeContext()): string {
  return traceIdIn(ctx) ?? randomTraceLikeId();
}

/** A random W3C-trace-ID-shaped string (never all zeros). */
export function randomTraceLikeId(): string {
  for (;;) {
    const id = randomBytes(16).toString('hex');
    if (id !== INVALID_TRACE_ID) return id;
  }
}
