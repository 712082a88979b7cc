import { randomUUID } from 'node:crypto';
import { diag } from '@opentelemetry/api';
import { STATUS_CODES, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  ProxyHttpConfigError,
  checkHttpConfig,
  createRequestGuard,
  refusalOf,
} from './http-guard.js';
export {
  ProxyHttpConfigError,
  createRequestGuard,
  isLoopbackHost,
  refusalOf,
} from './http-guard.js';
export type { Refusal, RequestGuard } from './http-guard.js';
import type { ProxyHttpOptions, ToolFailureProxy } from './types.js';
import { HttpEndpointMetrics } from './http-metrics.js';
import { createModernFront, type ModernFront } from './http-modern.js';
import { MODERN_REVISION } from '../shared/envelope.js';
import { InFlightLimits, requestIdsOf, type Hold, type SessionCounts } from './http-admission.js';
import {
  REFUSALS,
  refusalBody,
  refusalOfMessages,
  resolveHttpLimits,
  type ProxyHttpLimits,
  type RefusalReason,
} from './http-limits.js';
import { firstLineOf } from '../shared/first-line.js';

/** A Streamable HTTP endpoint serving a proxy; stop it with `close()`. */
export interface ProxyHttpEndpoint {
  url: string;
  /** The limits in force (the defaults with the options' values over them). */
  limits: Readonly<ProxyHttpLimits>;
  /** Sessions open now (always 0 in stateless mode). */
  sessions(): number;
  close(): Promise<void>;
}

/** One open MCP session: its transport, its requests being answered and its idle timer. */
interface Session extends SessionCounts {
  transport: StreamableHTTPServerTransport;
  /** Requests of the session whose response is still open (POSTs and a GET stream). */
  open: number;
  idle: NodeJS.Timeout | undefined;
  expired: boolean;
  /** Its transport has closed: it is gone from the table and must not be kept by a timer. */
  closed: boolean;
}

/**
 * Serves `proxy` over Streamable HTTP at `http://host:port/mcp`. Sessionful (the default): one
 * proxy connection per MCP session, created on `initialize`, ended on DELETE, after
 * `sessionIdleMs` without a request, or when the endpoint closes. Stateless (`stateless: true`):
 * every POST is served by a connection of its own and nothing outlives the response, so replicas
 * behind a load balancer can share one client. With `revision: '2026-07-28'` the endpoint is
 * stateless and also serves that revision (no session, `server/discover`, the version in each
 * request's `_meta`) through the SDK 2.x server. Every request passes `Host`/`Origin` validation
 * and, with `authToken`, bearer authentication before anything else, then the limits of
 * `ProxyHttpLimits`; each refusal is a JSON-RPC error body and is counted in
 * `mcp.proxy.refused_requests`. A non-loopback address needs `allowedHosts` and `authToken`
 * (or `allowUnauthenticated`), else it throws `ProxyHttpConfigError` without listening.
 */
export async function serveStreamableHttp(
  proxy: ToolFailureProxy,
  host: string,
  port: number,
  options: ProxyHttpOptions = {},
): Promise<ProxyHttpEndpoint> {
  checkHttpConfig(host, options);
  const guard = createRequestGuard(host, options);
  const limits = resolveHttpLimits(options.limits, (m) => new ProxyHttpConfigError(m));
  const revision = options.revision;
  if (revision !== undefined && revision !== MODERN_REVISION)
    throw new ProxyHttpConfigError(
      `revision must be ${MODERN_REVISION} (the earlier revisions are always served), got ${JSON.stringify(revision)}`,
    );
  // The 2026-07-28 revision has no sessions: an endpoint serving it is stateless for all.
  const stateless = options.stateless === true || revision !== undefined;
  if (stateless) {
    const sessionOnly = (['maxSessions', 'sessionIdleMs', 'maxInFlightPerSession'] as const).find(
      (k) => options.limits?.[k] !== undefined,
    );
    if (sessionOnly !== undefined)
      throw new ProxyHttpConfigError(
        `the HTTP limit ${sessionOnly} applies to sessions, and a stateless endpoint keeps none`,
      );
  }
  const modern = revision === undefined ? undefined : await modernFront(proxy);
  const telemetry = new HttpEndpointMetrics(options.meterProvider);
  const log = options.log ?? ((line: string): void => diag.warn(`mcp-failure-proxy: ${line}`));
  const { StreamableHTTPServerTransport: Transport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const sessions = new Map<string, Session>();
  /** Initialize requests admitted whose session is not open yet: they count against maxSessions. */
  let opening = 0;
  const inFlight = new InFlightLimits(limits);
  let closing = false;
  /** Request bodies being read, in bytes: bounded by `maxBufferedBytes` across the endpoint. */
  const buffered = { bytes: 0, max: limits.maxBufferedBytes };

  const refuse = (
    res: ServerResponse,
    reason: RefusalReason,
    headers: Record<string, string> = {},
    body = refusalBody(reason),
  ): void => {
    telemetry.refusal(reason);
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
  };

  /** Holds one request against the in-flight counts (a POST) and its session until its response closes. */
  const track = (
    res: ServerResponse,
    session: Session | undefined,
    post: boolean,
  ): Hold | undefined => {
    const hold = post ? inFlight.hold(session) : undefined;
    if (session !== undefined) {
      session.open += 1;
      if (session.idle !== undefined) clearTimeout(session.idle);
      session.idle = undefined;
    }
    res.once('close', () => {
      if (hold !== undefined) inFlight.release(hold);
      if (session === undefined) return;
      session.open -= 1;
      if (session.open === 0) armIdle(session);
    });
    return hold;
  };

  /**
   * Admits the requests of a POST's body (a batch counts each one), or refuses the whole POST
   * with one JSON-RPC error per request, each with its id; `false` when refused.
   */
  const admitBody = (res: ServerResponse, hold: Hold | undefined, message: unknown): boolean => {
    if (hold === undefined) return true;
    const ids = requestIdsOf(message);
    const refused = inFlight.admit(hold, ids);
    if (refused === undefined) return true;
    refuse(res, refused, {}, refusalOfMessages(refused, ids, Array.isArray(message)));
    return false;
  };

  /** Starts the idle timer of an open session with no request open (never of a closed one). */
  const armIdle = (session: Session): void => {
    const id = session.transport.sessionId;
    if (closing || session.closed || id === undefined || sessions.get(id) !== session) return;
    if (session.idle !== undefined) clearTimeout(session.idle);
    session.idle = setTimeout(() => {
      session.expired = true;
      void session.transport.close().catch(() => undefined);
    }, limits.sessionIdleMs);
    session.idle.unref();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Before the path, the body or any session: a refused request costs nothing more.
    const refused = refusalOf(guard, req.headers, req.socket.localPort);
    if (refused !== undefined) return refuse(res, refused.reason, refused.headers);
    if (pathOf(req.url) !== '/mcp') return refuse(res, 'not_found');
    if (closing) return refuse(res, 'shutting_down');
    honourConnectionClose(res);
    const post = req.method === 'POST';
    if (post && inFlight.full(undefined)) return refuse(res, 'in_flight_limit');
    if (stateless) {
      if (!post) return refuse(res, 'method_not_allowed', { allow: 'POST' });
      const hold = track(res, undefined, true);
      const body = await readJson(req, limits.maxBodyBytes, buffered);
      if (typeof body === 'string') return refuse(res, body);
      if (!admitBody(res, hold, body.value)) return;
      if (modern !== undefined && (await modern.isModern(req, body.value)))
        return modern.serve(req, res, body.value);
      const transport = new Transport({ sessionIdGenerator: undefined });
      // Closing the transport ends the request's handler, and with it the upstream request.
      res.once('close', () => void transport.close().catch(() => undefined));
      await proxy.connect(transport);
      // A client gone while the upstream was being reached: nothing to answer, nothing to keep.
      if (res.destroyed) return transport.close();
      await transport.handleRequest(req, res, body.value);
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const session = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (session !== undefined) {
      if (post && inFlight.full(session)) return refuse(res, 'in_flight_limit');
      const hold = track(res, session, post);
      if (!post) return session.transport.handleRequest(req, res);
      const body = await readJson(req, limits.maxBodyBytes, buffered);
      if (typeof body === 'string') return refuse(res, body);
      if (!admitBody(res, hold, body.value)) return;
      cancelOnDisconnect(res, session.transport, body.value);
      return session.transport.handleRequest(req, res, body.value);
    }
    if (typeof sid === 'string') return refuse(res, 'session_not_found');
    // Only an initialize request opens a session (and an upstream connection): anything else
    // without a session is answered here, before any of that is set up or kept.
    if (!post) return refuse(res, 'no_session');
    track(res, undefined, true);
    const body = await readJson(
      req,
      Math.min(limits.maxBodyBytes, SESSIONLESS_BODY_BYTES),
      buffered,
    );
    if (typeof body === 'string') return refuse(res, body);
    if (!isInitializeRequest(body.value)) return refuse(res, 'no_session');
    if (sessions.size + opening >= limits.maxSessions) return refuse(res, 'session_limit');
    opening += 1;
    const created: Session = {
      ids: new Set(),
      transport: new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
          telemetry.sessionOpened();
        },
      }),
      // Its initialize is held against the endpoint's count (track above), not the session's.
      open: 1,
      inFlight: 0,
      idle: undefined,
      expired: false,
      closed: false,
    };
    // This initialize is the session's first open request: its response closing arms the timer.
    res.once('close', () => {
      created.open -= 1;
      if (created.open === 0) armIdle(created);
    });
    created.transport.onclose = () => {
      created.closed = true;
      if (created.idle !== undefined) clearTimeout(created.idle);
      const id = created.transport.sessionId;
      if (id !== undefined && sessions.get(id) === created) {
        sessions.delete(id);
        telemetry.sessionClosed(created.expired);
      }
    };
    try {
      await proxy.connect(created.transport);
      // A client gone while the upstream was being reached gets no session at all.
      if (!res.destroyed) await created.transport.handleRequest(req, res, body.value);
    } finally {
      opening -= 1;
    }
    // An initialize the SDK refused, or one whose client left, keeps nothing.
    if (created.transport.sessionId === undefined || res.destroyed) {
      await created.transport.close();
      return;
    }
    // Its response may have closed before the session existed: the idle timer starts now.
    if (created.open === 0) armIdle(created);
  };

  /** A refusal written straight to the socket, for a request no handler has seen. */
  const refuseOnSocket = (socket: Duplex, reason: RefusalReason): void => {
    telemetry.refusal(reason);
    if (socket.writable) {
      const body = refusalBody(reason);
      socket.end(
        `HTTP/1.1 ${REFUSALS[reason].status} ${STATUS_CODES[REFUSALS[reason].status]}\r\n` +
          'content-type: application/json\r\nconnection: close\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    }
    // A peer that never closes its side (a slow client) is cut off shortly after.
    setTimeout(() => socket.destroy(), 1000).unref();
  };

  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node looks for expired requests (30 s by default, too coarse for the limits).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(limits.headersTimeoutMs / 2)),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        const text = firstLineOf(error);
        log(`${req.method ?? 'request'} /mcp failed: ${text}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`mcp-failure-proxy: ${text}`);
      });
    },
  );
  // What Node refuses itself (a head too large, a head or body too slow, bytes that are not
  // HTTP) gets the same JSON-RPC answer and count as every other refusal.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const pending = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
      socket.destroy();
      return;
    }
    refuseOnSocket(
      socket,
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'header_too_large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request_timeout'
          : 'bad_request',
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    limits,
    sessions: () => sessions.size,
    async close() {
      closing = true;
      await Promise.all(
        [...sessions.values()].map((s) => s.transport.close().catch(() => undefined)),
      );
      sessions.clear();
      await modern?.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The 2026-07-28 front, or the one-line reason it cannot be had as a configuration error. */
async function modernFront(proxy: ToolFailureProxy): Promise<ModernFront> {
  try {
    return await createModernFront(proxy);
  } catch (error) {
    throw new ProxyHttpConfigError(error instanceof Error ? error.message : String(error));
  }
}

/** A body longer than this is refused before a session exists (an `initialize` is a few hundred bytes). */
const SESSIONLESS_BODY_BYTES = 64 * 1024;

/** Bytes of request bodies being read at once, across an endpoint. */
interface BodyBudget {
  bytes: number;
  max: number;
}

/**
 * The JSON body of `req` in `{ value }`, or the refusal it earns: larger than `max` bytes
 * (by `Content-Length` before reading, or while reading), more than the endpoint's body budget
 * holds at once, or not JSON.
 */
async function readJson(
  req: IncomingMessage,
  max: number,
  budget: BodyBudget,
): Promise<{ value: unknown } | 'body_too_large' | 'buffer_limit' | 'parse_error'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return 'body_too_large';
  let text: string;
  try {
    text = await readBody(req, max, budget);
  } catch (error) {
    if (error instanceof BodyRefused) return error.reason;
    throw error;
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'parse_error';
  }
}

class BodyRefused extends Error {
  constructor(readonly reason: 'body_too_large' | 'buffer_limit') {
    super(reason);
  }
}

function readBody(req: IncomingMessage, max: number, budget: BodyBudget): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const release = (): void => {
      budget.bytes -= size;
      size = 0;
    };
    const refuse = (reason: 'body_too_large' | 'buffer_limit'): void => {
      release();
      // The rest is dropped unread; the answer says so and the connection closes.
      req.removeAllListeners('data');
      req.resume();
      reject(new BodyRefused(reason));
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      budget.bytes += chunk.length;
      if (size > max) return refuse('body_too_large');
      if (budget.bytes > budget.max) return refuse('buffer_limit');
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      release();
      resolve(text);
    });
    req.on('error', (error) => {
      release();
      reject(error);
    });
    // A client that goes away mid-body: settled either way (a no-op after 'end').
    req.on('close', () => {
      release();
      reject(new Error('the request was aborted'));
    });
  });
}

/** The path of a request target, or `undefined` for one that is not a URL path. */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://x').pathname;
  } catch {
    return undefined;
  }
}

/**
 * Makes a response honour a request that asked to close its connection (`Connection: close`, or
 * HTTP/1.0 without keep-alive; Node has decided that in `shouldKeepAlive` before the handler
 * runs). The SDK's transport writes `Connection: keep-alive` on its SSE answers, which Node would
 * otherwise obey and keep the connection open.
 */
function honourConnectionClose(res: ServerResponse): void {
  if (res.shouldKeepAlive) return;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const at = typeof args[1] === 'string' ? 2 : 1;
    const headers = args[at];
    if (Array.isArray(headers)) {
      const pairs: unknown[] = [];
      for (let i = 0; i + 1 < headers.length; i += 2)
        if (String(headers[i]).toLowerCase() !== 'connection')
          pairs.push(headers[i], headers[i + 1]);
      args[at] = pairs;
    } else if (typeof headers === 'object' && headers !== null) {
      args[at] = Object.fromEntries(
        Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'connection'),
      );
    }
    res.setHeader('connection', 'close');
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
}

/**
 * When the response of a POST closes before it is complete (the client went away), its requests
 * are cancelled as MCP cancels them, so their handlers and upstream requests end instead of
 * running on outside the in-flight limits.
 */
function cancelOnDisconnect(
  res: ServerResponse,
  transport: StreamableHTTPServerTransport,
  message: unknown,
): void {
  const ids = requestIdsOf(message);
  if (ids.length === 0) return;
  res.once('close', () => {
    if (res.writableFinished) return;
    for (const requestId of ids)
      transport.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'the client disconnected' },
      });
  });
}
