import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { isIPv4, type AddressInfo } from 'node:net';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ProxyHttpOptions, ToolFailureProxy } from './types.js';
import { PARSE_ERROR, REQUEST_TIMEOUT, SERVER_ERROR } from '../shared/jsonrpc.js';

/** A Streamable HTTP endpoint serving a proxy; stop it with `close()`. */
export interface ProxyHttpEndpoint {
  url: string;
  close(): Promise<void>;
}

/** A configuration `serveStreamableHttp` refuses to start with (a usage error for the CLI). */
export class ProxyHttpConfigError extends Error {}

/**
 * Serves `proxy` over Streamable HTTP at `http://host:port/mcp`, one proxy connection per
 * MCP session (created on `initialize`, ended on DELETE or when the endpoint closes). Every
 * request passes `Host`/`Origin` validation and, with `authToken`, bearer authentication
 * before anything else; a non-loopback address needs `allowedHosts` and `authToken` (or
 * `allowUnauthenticated`), else it throws `ProxyHttpConfigError` without listening.
 */
export async function serveStreamableHttp(
  proxy: ToolFailureProxy,
  host: string,
  port: number,
  options: ProxyHttpOptions = {},
): Promise<ProxyHttpEndpoint> {
  checkHttpConfig(host, options);
  const guard = createRequestGuard(host, options);
  const { StreamableHTTPServerTransport: Transport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Before the path, the body or any session: a refused request costs nothing more.
    const refused = refusalOf(guard, req.headers, req.socket.localPort);
    if (refused !== undefined) {
      rpcError(res, refused.status, SERVER_ERROR, refused.message, refused.headers);
      return;
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (transport === undefined) {
      if (typeof sid === 'string') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: REQUEST_TIMEOUT, message: 'Session not found' },
          }),
        );
        return;
      }
      // Only an initialize request opens a session (and an upstream connection): anything else
      // without a session is answered here, before any of that is set up or kept.
      if (req.method !== 'POST') {
        noSession(res);
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch (error) {
        if (error instanceof BodyTooLarge) rpcError(res, 413, SERVER_ERROR, error.message);
        else rpcError(res, 400, PARSE_ERROR, 'Parse error: the body is not JSON');
        return;
      }
      if (!isInitializeRequest(body)) {
        noSession(res);
        return;
      }
      const created: StreamableHTTPServerTransport = new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) sessions.delete(created.sessionId);
      };
      await proxy.connect(created);
      await created.handleRequest(req, res, body);
      // An initialize the SDK refused made no session: nothing may keep its connection.
      if (created.sessionId === undefined) await created.close();
      return;
    }
    await transport.handleRequest(req, res);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`mcp-failure-proxy: ${error instanceof Error ? error.message : String(error)}`);
    });
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
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The largest request body read before a session exists (the SDK's own limit for a POST). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // The rest is read and dropped, so the answer still reaches the client.
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge(`Payload too large: over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    // A client that goes away mid-body: settled either way (a no-op after 'end').
    req.on('close', () => reject(new Error('the request was aborted')));
  });
}

function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { ...headers, 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** The answer to a request without a session that is not an `initialize`. */
function noSession(res: ServerResponse): void {
  rpcError(res, 400, SERVER_ERROR, 'Bad Request: no session; the first request must be initialize');
}

/** Whether `host` (a `--listen` host, brackets removed) names the loopback interface only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return isIPv4(v4) && v4.startsWith('127.');
}

function checkHttpConfig(host: string, options: ProxyHttpOptions): void {
  if (options.authToken === '') throw new ProxyHttpConfigError('the bearer token is empty');
  if (isLoopbackHost(host)) return;
  if (options.authToken === undefined && options.allowUnauthenticated !== true)
    throw new ProxyHttpConfigError(
      `${host} is not a loopback address: set a bearer token (--auth-token-file or --auth-token-env), or pass --allow-unauthenticated`,
    );
  if (options.allowedHosts === undefined || options.allowedHosts.length === 0)
    throw new ProxyHttpConfigError(
      `${host} is not a loopback address: name the Host values clients use with --allowed-hosts`,
    );
}

/** What a request must show: pure data, built once before the endpoint listens. */
export interface RequestGuard {
  /** Listening on loopback: the loopback names are accepted, bare or with the local port. */
  loopback: boolean;
  /** `Host` values accepted as they are (lower-cased). */
  exactHosts: ReadonlySet<string>;
  /** Host names accepted on any port. */
  anyPortHosts: ReadonlySet<string>;
  /** Serialised origins (`scheme://host[:port]`, lower-cased) accepted in `Origin`. */
  origins: ReadonlySet<string>;
  /** SHA-256 of the bearer token, so the comparison never depends on its length. */
  tokenDigest: Buffer | undefined;
}

/** A refused request: its HTTP status, message and extra headers. */
export interface Refusal {
  status: 401 | 403;
  message: string;
  headers?: Record<string, string>;
}

const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The realm a 401 names in `WWW-Authenticate`. */
export const AUTH_REALM = 'mcp-failure-proxy';

/** Builds the guard of an endpoint on `host`; throws `ProxyHttpConfigError` on a bad entry. */
export function createRequestGuard(host: string, options: ProxyHttpOptions): RequestGuard {
  const exactHosts = new Set<string>();
  const anyPortHosts = new Set<string>();
  const origins = new Set<string>();
  for (const entry of options.allowedHosts ?? []) {
    const parsed = splitHost(entry.trim().toLowerCase());
    if (parsed === undefined || parsed.name === '')
      throw new ProxyHttpConfigError(`not a host or host:port in allowedHosts: "${entry}"`);
    if (parsed.port === undefined) anyPortHosts.add(parsed.name);
    else exactHosts.add(`${parsed.name}:${parsed.port}`);
  }
  for (const entry of options.allowedOrigins ?? []) {
    const origin = originOf(entry.trim());
    if (origin === undefined)
      throw new ProxyHttpConfigError(
        `not an origin (scheme://host[:port]) in allowedOrigins: "${entry}"`,
      );
    origins.add(origin.href);
  }
  return {
    loopback: isLoopbackHost(host),
    exactHosts,
    anyPortHosts,
    origins,
    tokenDigest: options.authToken === undefined ? undefined : digest(options.authToken),
  };
}

/**
 * Why a request with these headers, arriving on local port `port`, is refused, or `undefined`
 * when it may proceed. Pure: Host, then Origin (403), then the bearer token (401).
 */
export function refusalOf(
  guard: RequestGuard,
  headers: IncomingHttpHeaders,
  port: number | undefined,
): Refusal | undefined {
  const local = port === undefined ? undefined : String(port);
  const host = headers.host?.toLowerCase();
  const parsed = host === undefined ? undefined : splitHost(host);
  const hostOk =
    host !== undefined &&
    parsed !== undefined &&
    (guard.exactHosts.has(host) ||
      guard.anyPortHosts.has(parsed.name) ||
      (guard.loopback &&
        LOOPBACK_NAMES.has(parsed.name) &&
        (parsed.port === undefined || parsed.port === local)));
  if (!hostOk) return { status: 403, message: 'Forbidden: Host header not allowed' };
  if (headers.origin !== undefined) {
    const origin = originOf(headers.origin);
    const originOk =
      origin !== undefined &&
      (guard.origins.has(origin.href) ||
        (guard.loopback &&
          (origin.protocol === 'http:' || origin.protocol === 'https:') &&
          LOOPBACK_NAMES.has(origin.hostname) &&
          (origin.port === '' || origin.port === local)));
    if (!originOk) return { status: 403, message: 'Forbidden: Origin header not allowed' };
  }
  if (guard.tokenDigest !== undefined) {
    const m = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
    // Both sides hashed: equal lengths always, so neither the comparison nor its length leaks.
    if (m?.[1] === undefined || !timingSafeEqual(digest(m[1]), guard.tokenDigest))
      return {
        status: 401,
        message: 'Unauthorized: a valid bearer token is required',
        headers: { 'www-authenticate': `Bearer realm="${AUTH_REALM}"` },
      };
  }
  return undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** `name[:port]` or `[v6][:port]`, lower-cased by the caller. */
function splitHost(text: string): { name: string; port: string | undefined } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]*)(?::(\d{1,5}))?$/.exec(text);
  if (m?.[1] === undefined) return undefined;
  return { name: m[1], port: m[2] };
}

/** The origin of `text` (`href` is its serialisation), or `undefined` for anything else. */
function originOf(
  text: string,
): { href: string; protocol: string; hostname: string; port: string } | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.origin === 'null') return undefined;
  return {
    href: url.origin.toLowerCase(),
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port,
  };
}
