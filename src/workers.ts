/**
 * What a Cloudflare Worker that serves MCP needs beside `instrumentServer()`: its telemetry
 * flushed once each response has been sent, while `ctx.waitUntil` keeps the Worker alive. The
 * application owns its OpenTelemetry SDK and hands over its flush; nothing here starts one.
 *
 * @module @omcp/instrumentation-mcp/workers
 */
import { diag } from '@opentelemetry/api';

/** The part of a Worker's `ExecutionContext` (the fetch handler's third argument) this uses. */
export interface WaitUntilContext {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Returns `response` with `flush()` run once its body has been sent (at once when it has none),
 * the flush handed to `ctx.waitUntil`. A streamed body (Server-Sent Events) ends after the
 * handler returns, and so does the server span of its call: a flush at the return leaves that
 * span to the next request's flush. A failed flush is reported on `diag`, never thrown.
 */
export function flushAfterResponse(
  response: Response,
  ctx: WaitUntilContext,
  flush: () => Promise<unknown>,
): Response {
  const run = (): Promise<void> =>
    Promise.resolve()
      .then(flush)
      .then(
        () => undefined,
        (error: unknown) => diag.warn('mcp: flushing telemetry after a response failed', error),
      );
  // Nothing to follow: no body, or one already read or being read by someone else.
  if (response.body === null || response.bodyUsed || response.body.locked) {
    ctx.waitUntil(run());
    return response;
  }
  let relayed: Response;
  let sent: Promise<unknown>;
  try {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    // A client that goes away mid-stream ends the body too: the flush runs all the same.
    sent = response.body.pipeTo(writable).catch(() => undefined);
    relayed = new Response(readable, response);
  } catch (error) {
    // A runtime without web streams: the response as it is, flushed now.
    diag.warn('mcp: cannot follow the response body; flushing at once', error);
    ctx.waitUntil(run());
    return response;
  }
  ctx.waitUntil(sent.then(run));
  return relayed;
}
