import type { ServerResponse } from 'node:http';
import { REFUSALS, type RefusalReason } from './http-limits.js';

// The one writer of a refusal as an HTTP answer, for the proxy's front and the checkers' scripted
// server alike (no OpenTelemetry here: the `mcp-failures` CLI loads it).

/** A refusal as the answer to `res` (its body a JSON-RPC error), or its end when too late. */
export function writeRefusal(
  res: ServerResponse,
  reason: RefusalReason,
  headers: Record<string, string>,
  body: string,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A refused request's unread body is not waited for: the connection closes after the answer.
  const extra = reason === 'body_too_large' || reason === 'buffer_limit';
  const refusal: { status: number; retryAfter?: number } = REFUSALS[reason];
  res
    .writeHead(refusal.status, {
      ...headers,
      ...(refusal.retryAfter === undefined ? {} : { 'retry-after': String(refusal.retryAfter) }),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...(extra ? { connection: 'close' } : {}),
    })
    .end(body);
}
