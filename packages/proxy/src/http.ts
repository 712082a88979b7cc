import { randomUUID } from 'node:crypto';
import { diag } from '@opentelemetry/api';
import {
  STATUS_CODES,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  ProxyHttpConfigError,
  checkHttpConfig,
  createRequestGuard,
  refusalOf,
  type RequestGuard,
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
import { MODERN_REVISION, firstLineOf } from '@omcp/tool-failure/wire';
import { InFlightLimits, requestIdsOf } from './http-admission.js';
import { BodyReader } from './http-body.js';
import { SessionTable, type HttpSession } from './http-sessions.js';
import { SessionStreams, cancelledIdsOf } from './http-cancel.js';
import { writeRefusal } from './http-refusal.js';
import {
  REFUSALS,
  refusalBody,
  resolveHttpLimits,
  type ProxyHttpLimits,
  type RefusalReason,
} from './http-limits.js';

/** A Streamable HTTP endpoint serving a proxy; stop it with `close()`. */
export interface ProxyHttpEndpoint {
  url: string;
  /** The limits in force (the defaults with the options' values over them). */
  limits: Readonly<ProxyHttpLimits>;
  /** Sessions open now (always 0 in stateless mode). */
  sessions(): number;
  close(): Promise<void>;
}

/** The settings of one endpoint, checked. */
interface EndpointConfig {
  guard: RequestGuard;
  limits: ProxyHttpLimits;
  revision: ProxyHttpOptions['revision'];
  /** No sessions: every POST is served on its own. */
  stateless: boolean;
}

/** The SDK 1.x pieces the front uses, loaded once per endpoint. */
interface HttpSdk {
  Transport: typeof StreamableHTTPServerTransport;
  isInitializeRequest: (value: unknown) => boolean;
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
  const config = endpointConfig(host, options);
  const modern = config.revision === undefined ? undefined : await modernFront(proxy);
  const telemetry = new HttpEndpointMetrics(options.meterProvider);
  const log = options.log ?? ((line: string): void => diag.warn(`mcp-failure-proxy: ${line}`));
  const { StreamableHTTPServerTransport: Transport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const front = new HttpFront(proxy, config, { Transport, isInitializeRequest }, telemetry, modern);
  const server = httpServerFor(front, config.limits, telemetry, log);
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
    limits: config.limits,
    sessions: () => front.sessions.size,
    async close() {
      await front.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The endpoint's settings from `options`, or the `ProxyHttpConfigError` that refuses them. */
function endpointConfig(host: string, options: ProxyHttpOptions): EndpointConfig {
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
  return { guard, limits, revision, stateless };
}

/**
 * The Node HTTP server of an endpoint: its limits on heads and times, each request handed to
 * `front`, and what Node refuses itself answered like every other refusal.
 */
function httpServerFor(
  front: HttpFront,
  limits: Readonly<ProxyHttpLimits>,
  telemetry: HttpEndpointMetrics,
  log: (line: string) => void,
): Server {
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
      front.handle(req, res).catch((error: unknown) => {
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
    const reason =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'header_too_large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request_timeout'
          : 'bad_request';
    telemetry.refusal(reason);
    refuseOnSocket(socket, reason);
  });
  return server;
}

/**
 * One endpoint's handling of a request: the access checks and limits, then the stateless path,
 * a request of an open session, or an `initialize` that opens one. Its state is in its parts:
 * the session table, the in-flight limits and the body reader.
 */
class HttpFront {
  readonly sessions: SessionTable<StreamableHTTPServerTransport>;
  private readonly inFlight: InFlightLimits;
  private readonly bodies: BodyReader;
  /** Each session's POST streams, for the client's cancellations of its own requests. */
  private readonly streams = new WeakMap<
    HttpSession<StreamableHTTPServerTransport>,
    SessionStreams
  >();

  constructor(
    private readonly proxy: ToolFailureProxy,
    private readonly config: EndpointConfig,
    private readonly sdk: HttpSdk,
    private readonly telemetry: HttpEndpointMetrics,
    private readonly modern: ModernFront | undefined,
  ) {
    this.sessions = new SessionTable(config.limits, telemetry);
    this.inFlight = new InFlightLimits(config.limits);
    this.bodies = new BodyReader(config.limits.maxBufferedBytes);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Before the path, the body or any session: a refused request costs nothing more.
    const refused = refusalOf(this.config.guard, req.headers, req.socket.localPort);
    if (refused !== undefined) return this.refuse(res, refused.reason, refused.headers);
    if (pathOf(req.url) !== '/mcp') return this.refuse(res, 'not_found');
    if (this.sessions.closing) return this.refuse(res, 'shutting_down');
    honourConnectionClose(res);
    const post = req.method === 'POST';
    if (post && this.inFlight.full(undefined)) return this.refuse(res, 'in_flight_limit');
    if (this.config.stateless) return this.serveStateless(req, res, post);
    const sid = req.headers['mcp-session-id'];
    const session = typeof sid === 'string' ? this.sessions.get(sid) : undefined;
    if (session !== undefined) return this.serveInSession(req, res, session, post);
    if (typeof sid === 'string') return this.refuse(res, 'session_not_found');
    // Only an initialize request opens a session (and an upstream connection): anything else
    // without a session is answered here, before any of that is set up or kept.
    if (!post) return this.refuse(res, 'no_session');
    return this.openSession(req, res);
  }

  /** Closes every session and the 2026-07-28 front; every request from now on is refused. */
  async close(): Promise<void> {
    await this.sessions.close();
    await this.modern?.close().catch(() => undefined);
  }

  private async serveStateless(
    req: IncomingMessage,
    res: ServerResponse,
    post: boolean,
  ): Promise<void> {
    if (!post) return this.refuse(res, 'method_not_allowed', { allow: 'POST' });
    const message = await this.admittedBody(req, res, undefined, this.config.limits.maxBodyBytes);
    if (message === undefined) return;
    const { modern } = this;
    if (modern !== undefined && (await modern.isModern(req, message.value)))
      return modern.serve(req, res, message.value);
    const transport = new this.sdk.Transport({ sessionIdGenerator: undefined });
    // Closing the transport ends the request's handler, and with it the upstream request.
    res.once('close', () => void transport.close().catch(() => undefined));
    await this.proxy.connect(transport);
    // A client gone while the upstream was being reached: nothing to answer, nothing to keep.
    if (res.destroyed) return transport.close();
    await transport.handleRequest(req, res, message.value);
  }

  private async serveInSession(
    req: IncomingMessage,
    res: ServerResponse,
    session: HttpSession<StreamableHTTPServerTransport>,
    post: boolean,
  ): Promise<void> {
    if (post && this.inFlight.full(session.counts)) return this.refuse(res, 'in_flight_limit');
    if (!post) {
      session.holdOpen(res);
      return session.transport.handleRequest(req, res);
    }
    const message = await this.admittedBody(req, res, session, this.config.limits.maxBodyBytes);
    if (message === undefined) return;
    cancelOnDisconnect(res, session.transport, message.value);
    const streams = this.streams.get(session);
    streams?.opened(res, requestIdsOf(message.value));
    await session.transport.handleRequest(req, res, message.value);
    // The client's cancellation of its own request (handled above: the request's handler and its
    // upstream request end) ends that request's stream, which nothing else would answer.
    for (const id of cancelledIdsOf(message.value)) streams?.cancelled(id);
  }

  /** An `initialize` without a session: a new session, if it is one and one more may open. */
  private async openSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Its initialize is held against the endpoint's count, not the session's (none yet).
    const max = Math.min(this.config.limits.maxBodyBytes, SESSIONLESS_BODY_BYTES);
    this.inFlight.holdUntilClosed(res, undefined);
    const body = await this.bodies.readJson(req, max);
    if (typeof body === 'string') return this.refuse(res, body);
    if (!this.sdk.isInitializeRequest(body.value)) return this.refuse(res, 'no_session');
    const session = await this.sessions.open(
      (initialized) =>
        new this.sdk.Transport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: initialized,
        }),
      async (opened) => {
        this.streams.set(opened, new SessionStreams(opened.transport));
        // This initialize is the session's first open request: its response closing arms the timer.
        opened.holdOpen(res);
        await this.proxy.connect(opened.transport);
        // A client gone while the upstream was being reached gets no session at all.
        if (!res.destroyed) await opened.transport.handleRequest(req, res, body.value);
      },
    );
    if (session === undefined) return this.refuse(res, 'session_limit');
    // An initialize the SDK refused, or one whose client left, keeps nothing.
    if (session.transport.sessionId === undefined || res.destroyed) {
      await session.transport.close();
      return;
    }
    // Its response may have closed before the session existed: the idle timer starts now.
    session.idleIfUnused();
  }

  /**
   * The parsed body of a POST of `session` (or of none), held against the in-flight limits (and
   * keeping the session from idling) until its response closes, and admitted whole; `undefined`
   * when it was refused (and answered).
   */
  private async admittedBody(
    req: IncomingMessage,
    res: ServerResponse,
    session: HttpSession<StreamableHTTPServerTransport> | undefined,
    max: number,
  ): Promise<{ value: unknown } | undefined> {
    const hold = this.inFlight.holdUntilClosed(res, session?.counts);
    session?.holdOpen(res);
    const body = await this.bodies.readJson(req, max);
    if (typeof body === 'string') return void this.refuse(res, body);
    const refused = this.inFlight.admitMessage(hold, body.value);
    if (refused !== undefined) return void this.refuse(res, refused.reason, {}, refused.body);
    return body;
  }

  private refuse(
    res: ServerResponse,
    reason: RefusalReason,
    headers: Record<string, string> = {},
    body = refusalBody(reason),
  ): void {
    this.telemetry.refusal(reason);
    writeRefusal(res, reason, headers, body);
  }
}

/** A refusal written straight to the socket, for a request no handler has seen. */
function refuseOnSocket(socket: Duplex, reason: RefusalReason): void {
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
