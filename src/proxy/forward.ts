/**
 * Pure decisions of the relay: what to forward upstream, and what the caller gets when the
 * upstream cannot answer. No I/O here; `proxy.ts` is the shell around them.
 */
import type { ToolFailureInit } from '../tool-failure/types.js';
import { isRecord } from '../shared/safe.js';

/** Keys of the W3C trace context that name the caller's span. */
const TRACE_CONTEXT_KEYS = ['traceparent', 'tracestate'];

type Params = Record<string, unknown>;

/**
 * The params to send upstream for a downstream request: the same params and `_meta` (a copy,
 * never the caller's objects), minus `traceparent` / `tracestate` when the proxy has its own
 * span for the call, so that the instrumentation's client patch parents the upstream on the
 * proxy's CLIENT span instead of the caller's (caller keys win when it injects). Baggage and
 * every other key, `progressToken` included, go through.
 */
export function forwardParams(params: unknown, proxySpanActive: boolean): Params | undefined {
  if (!isRecord(params)) return undefined;
  const meta = params._meta;
  if (!isRecord(meta)) return { ...params };
  const forwarded: Params = { ...meta };
  if (proxySpanActive) for (const key of TRACE_CONTEXT_KEYS) delete forwarded[key];
  return { ...params, _meta: forwarded };
}

/** Why the upstream gave no usable answer to one request. */
export type UpstreamProblem =
  /** The request was never delivered: spawn failed, connection refused, `initialize` failed. */
  | { kind: 'unavailable'; detail: string }
  /** The upstream went away (crash, closed connection) after the request was sent. */
  | { kind: 'lost'; detail: string }
  /** No answer within the configured timeout. */
  | { kind: 'timeout'; timeoutMs: number }
  /** The upstream answered something that is not an MCP response. */
  | { kind: 'malformed'; detail: string };

/**
 * The failure the proxy reports for `tools/call` when the upstream could not answer, for
 * `toolFailure` / `createToolFailure` (the correlationId comes from the proxy's own span).
 * `retryable` says what is safe: a request never delivered can be retried for any tool; one
 * lost or timed out after delivery may have run, so only an idempotent tool may be retried;
 * a malformed answer is not transient.
 */
export function upstreamFailureInit(
  problem: UpstreamProblem,
  tool: string,
  idempotent: boolean,
): ToolFailureInit {
  switch (problem.kind) {
    case 'unavailable':
      return {
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: true,
        message: `Upstream MCP server unavailable; tool "${tool}" was not called: ${problem.detail}`,
        agentGuidance: 'The tool server is unreachable; try again later.',
      };
    case 'lost':
      return {
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: idempotent,
        message: `Upstream MCP server went away during tool "${tool}": ${problem.detail}`,
        agentGuidance: idempotent
          ? 'The tool server dropped the call; it is safe to try again.'
          : 'The tool server dropped the call; it may or may not have run. Check before repeating it.',
      };
    case 'timeout':
      return {
        class: 'reliability',
        code: 'timeout',
        retryable: idempotent,
        message: `Upstream MCP server did not answer tool "${tool}" within ${problem.timeoutMs} ms.`,
        agentGuidance: idempotent
          ? 'The tool timed out; it is safe to try again.'
          : 'The tool timed out; it may or may not have run. Check before repeating it.',
      };
    case 'malformed':
      return {
        class: 'reliability',
        code: 'malformed_response',
        retryable: false,
        message: `Upstream MCP server answered tool "${tool}" with a malformed response: ${problem.detail}`,
        agentGuidance: 'The tool server is misbehaving; report it rather than retrying.',
      };
  }
}
