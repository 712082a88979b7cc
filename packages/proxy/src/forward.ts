/**
 * Pure decisions of the relay: what to forward upstream, and what the caller gets when the
 * upstream cannot answer. No I/O here; `proxy.ts` is the shell around them.
 */
import type { ToolFailureInit } from '@omcp/tool-failure';
import { isRecord, firstLineOf } from '@omcp/tool-failure/wire';

/** Keys of the W3C trace context that name the caller's span. */
const TRACE_CONTEXT_KEYS = ['traceparent', 'tracestate'];

/** Keys of the caller's propagated context, span and baggage, dropped when it is not trusted. */
const INCOMING_CONTEXT_KEYS = [...TRACE_CONTEXT_KEYS, 'baggage'];

type Params = Record<string, unknown>;

/**
 * The params to send upstream for a downstream request: the same params and `_meta` (a copy,
 * never the caller's objects), minus `traceparent` / `tracestate` when the proxy has its own
 * span for the call, so that the instrumentation's client patch parents the upstream on the
 * proxy's CLIENT span instead of the caller's (caller keys win when it injects). When the
 * caller's context is not trusted (`trusted: false`), its `baggage` is dropped too, span or no
 * span. Every other key, `progressToken` included, goes through.
 */
export function forwardParams(
  params: unknown,
  proxySpanActive: boolean,
  trusted = true,
): Params | undefined {
  if (!isRecord(params)) return undefined;
  const meta = params._meta;
  if (!isRecord(meta)) return { ...params };
  const forwarded: Params = { ...meta };
  const dropped = !trusted ? INCOMING_CONTEXT_KEYS : proxySpanActive ? TRACE_CONTEXT_KEYS : [];
  for (const key of dropped) delete forwarded[key];
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

/**
 * The deepest nesting of arrays and objects the proxy relays. `JSON.stringify`, which every
 * transport uses to send a message, recurses and overflows the stack near 4,500 levels on Node's
 * default stack; 1,000 leaves room for the frames below it and is far beyond real arguments.
 */
export const MAX_RELAYED_DEPTH = 1000;

/** Whether `value` nests arrays and objects deeper than `max` levels (walked without recursion). */
export function nestedBeyond(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The failure the proxy reports for `tools/call` when it cannot relay the caller's request (too
 * deep or too large to send): the caller's input, not the upstream; the tool was not called.
 */
export function unrelayableInputInit(tool: string, detail: string): ToolFailureInit {
  return {
    class: 'capability',
    code: 'invalid_input',
    retryable: false,
    message: `mcp-failure-proxy cannot relay the call of tool "${tool}": ${detail}. The tool was not called.`,
    agentGuidance: 'The arguments cannot be sent as they are; simplify them before trying again.',
  };
}

/** Error codes on a network error (or its causes) that say the request never left the proxy. */
const NOT_DELIVERED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * What a request that failed in the upstream transport's `send` says about the upstream, or
 * `undefined` when it is no transport failure: a connection that could not be made, or a
 * Streamable HTTP upstream that no longer knows the session (404, it restarted), means the
 * request was never delivered (`unavailable`); any other network error of the transport
 * (`fetch failed`, a reset, a closed socket) may have come after delivery (`lost`). `isNetwork`
 * is the package's rule for what a network error code is.
 */
export function transportProblemOf(
  error: unknown,
  isNetwork: (code: string) => boolean,
): UpstreamProblem | undefined {
  if (
    error instanceof Error &&
    (error as { code?: unknown }).code === 404 &&
    error.message.startsWith('Streamable HTTP error')
  )
    return { kind: 'unavailable', detail: `the upstream no longer knows the session (HTTP 404)` };
  let network = false;
  let e: unknown = error;
  for (let depth = 0; depth < 6 && e instanceof Error; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const detail = `${messageLine(error)} (${code})`;
    if (NOT_DELIVERED_CODES.has(code)) return { kind: 'unavailable', detail };
    if (isNetwork(code)) network = true;
  }
  const fetchFailed = error instanceof TypeError && error.message === 'fetch failed';
  return network || fetchFailed ? { kind: 'lost', detail: messageLine(error) } : undefined;
}

function messageLine(error: unknown): string {
  return firstLineOf(error).slice(0, 200);
}
