/**
 * What the proxy's Streamable HTTP endpoint bounds and the answer to each request it refuses:
 * one table, read by the endpoint, its metrics (http-metrics.ts), its tests and docs/proxy.md.
 * Pure data (it imports only the JSON-RPC error codes): the checkers' scripted HTTP server answers
 * from it too.
 */
import {
  INVALID_REQUEST,
  PARSE_ERROR,
  REQUEST_TIMEOUT,
  SERVER_ERROR,
} from '@omcp/tool-failure/wire';

/** Bounds of one Streamable HTTP endpoint; every one holds on every request. */
export interface ProxyHttpLimits {
  /** Sessions open at once; one more `initialize` gets 503. @default 1000 */
  maxSessions: number;
  /** A session with no open request for this long is closed. @default 600_000 (10 min) */
  sessionIdleMs: number;
  /** POST requests of one session being answered at once; one more gets 429. @default 64 */
  maxInFlightPerSession: number;
  /** POST requests being answered at once on the whole endpoint (stateless mode too). @default 4096 */
  maxInFlight: number;
  /** Largest request body, checked on every POST; larger gets 413. @default 4 MiB */
  maxBodyBytes: number;
  /**
   * Bytes of request bodies being read at once across the endpoint; a body that would pass it
   * gets 503. @default 64 MiB
   */
  maxBufferedBytes: number;
  /** Largest request head (request line and headers); larger gets 431. @default 16 KiB */
  maxHeaderBytes: number;
  /** Longest wait for a request's headers; slower gets 408. @default 10_000 */
  headersTimeoutMs: number;
  /** Longest wait for a whole request (headers and body); slower gets 408. @default 30_000 */
  requestTimeoutMs: number;
  /**
   * How long an idle keep-alive connection is kept open. Longer than the 60 s idle timeout of
   * common load balancers, so that the side in front closes idle connections, not the proxy
   * (a client reusing a connection the server is closing gets a reset). @default 65_000
   */
  keepAliveTimeoutMs: number;
}

/** The defaults; docs/proxy.md says why each is what it is. */
export const DEFAULT_HTTP_LIMITS: Readonly<ProxyHttpLimits> = Object.freeze({
  maxSessions: 1000,
  sessionIdleMs: 600_000,
  maxInFlightPerSession: 64,
  maxInFlight: 4096,
  maxBodyBytes: 4 * 1024 * 1024,
  maxBufferedBytes: 64 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
});

/** The longest delay a Node timer can wait (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * `given` over the defaults, each value a positive integer (a timer at most `MAX_TIMER_MS`);
 * the message of the error thrown names the first bad one (`bad` builds the error).
 */
export function resolveHttpLimits(
  given: Partial<ProxyHttpLimits> | undefined,
  bad: (message: string) => Error,
): ProxyHttpLimits {
  const limits = { ...DEFAULT_HTTP_LIMITS };
  for (const [key, value] of Object.entries(given ?? {})) {
    if (!Object.hasOwn(DEFAULT_HTTP_LIMITS, key)) throw bad(`unknown HTTP limit "${key}"`);
    if (value === undefined) continue;
    const max = key.endsWith('Ms') ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
      throw bad(`the HTTP limit ${key} must be an integer from 1 to ${max}, got ${String(value)}`);
    limits[key as keyof ProxyHttpLimits] = value;
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw bad('the HTTP limit headersTimeoutMs must not exceed requestTimeoutMs');
  return limits;
}

/** Why a request is refused: the `error.type` of `mcp.proxy.refused_requests`. */
export type RefusalReason = keyof typeof REFUSALS;

/**
 * Each refusal's HTTP status, `Retry-After` seconds (when trying again later can work), JSON-RPC
 * error code and message: the one table of them.
 */
export const REFUSALS = Object.freeze({
  host_not_allowed: {
    status: 403,
    code: SERVER_ERROR,
    message: 'Forbidden: Host header not allowed',
  },
  origin_not_allowed: {
    status: 403,
    code: SERVER_ERROR,
    message: 'Forbidden: Origin header not allowed',
  },
  unauthorized: {
    status: 401,
    code: SERVER_ERROR,
    message: 'Unauthorized: a valid bearer token is required',
  },
  not_found: { status: 404, code: SERVER_ERROR, message: 'Not Found: the endpoint is /mcp' },
  method_not_allowed: {
    status: 405,
    code: SERVER_ERROR,
    message: 'Method Not Allowed: the Allow header lists the methods this endpoint takes',
  },
  session_not_found: { status: 404, code: REQUEST_TIMEOUT, message: 'Session not found' },
  no_session: {
    status: 400,
    code: SERVER_ERROR,
    message: 'Bad Request: no session; the first request must be initialize',
  },
  parse_error: { status: 400, code: PARSE_ERROR, message: 'Parse error: the body is not JSON' },
  bad_request: {
    status: 400,
    code: SERVER_ERROR,
    message: 'Bad Request: not a valid HTTP request',
  },
  body_too_large: { status: 413, code: SERVER_ERROR, message: 'Payload Too Large' },
  header_too_large: {
    status: 431,
    code: SERVER_ERROR,
    message: 'Request Header Fields Too Large',
  },
  request_timeout: {
    status: 408,
    code: SERVER_ERROR,
    message: 'Request Timeout: the request did not arrive in time',
  },
  session_limit: {
    status: 503,
    retryAfter: 5,
    code: SERVER_ERROR,
    message: 'Service Unavailable: too many sessions; try again later',
  },
  buffer_limit: {
    status: 503,
    retryAfter: 1,
    code: SERVER_ERROR,
    message: 'Service Unavailable: too many request bodies being read; try again later',
  },
  shutting_down: {
    status: 503,
    code: SERVER_ERROR,
    message: 'Service Unavailable: the proxy is shutting down',
  },
  in_flight_limit: {
    status: 429,
    retryAfter: 1,
    code: SERVER_ERROR,
    message: 'Too Many Requests: too many requests in flight; try again later',
  },
  batch_too_large: {
    status: 400,
    code: INVALID_REQUEST,
    message: 'Bad Request: the batch holds more requests than may be in flight at once',
  },
  duplicate_id: {
    status: 409,
    code: INVALID_REQUEST,
    message: 'Conflict: a request with this id is already in flight in this session',
  },
} satisfies Record<string, { status: number; retryAfter?: number; code: number; message: string }>);

/** The body of a refusal: a JSON-RPC error without a request id. */
export function refusalBody(reason: RefusalReason, detail?: string): string {
  return JSON.stringify(refusalMessage(reason, null, detail));
}

/**
 * The body of a refusal of a POST whose messages were read: one JSON-RPC error per request, with
 * its id (an array for a batch, as JSON-RPC answers a batch), or `id: null` when it held none.
 */
export function refusalOfMessages(
  reason: RefusalReason,
  ids: ReadonlyArray<string | number>,
  batch: boolean,
): string {
  if (ids.length === 0) return refusalBody(reason);
  const messages = ids.map((id) => refusalMessage(reason, id));
  return JSON.stringify(batch ? messages : messages[0]);
}

function refusalMessage(reason: RefusalReason, id: string | number | null, detail?: string) {
  const { code, message } = REFUSALS[reason];
  return {
    jsonrpc: '2.0',
    id,
    error: { code, message: detail === undefined ? message : `${message}: ${detail}` },
  };
}
