import { randomBytes } from 'node:crypto';
import { isSpanContextValid, trace, type Context, context as contextApi } from '@opentelemetry/api';

/**
 * The correlation ID for a failure raised in `ctx`: the trace ID of its span, so the
 * ID a user reports leads straight to the server's trace; with no valid span, a fresh
 * random ID of the same shape (32 lower-case hex), never derived from request data.
 */
export function correlationIdFor(ctx: Context = contextApi.active()): string {
  const spanContext = trace.getSpanContext(ctx);
  if (spanContext !== undefined && isSpanContextValid(spanContext)) return spanContext.traceId;
  return randomTraceLikeId();
}

/** A random W3C-trace-ID-shaped string (never all zeros). */
export function randomTraceLikeId(): string {
  for (;;) {
    const id = randomBytes(16).toString('hex');
    if (id !== '00000000000000000000000000000000') return id;
  }
}
