/**
 * Who may talk to the proxy's Streamable HTTP endpoint: `Host`/`Origin` validation
 * (DNS-rebinding protection) and bearer authentication, as pure data built once and a pure
 * check per request. No I/O and no dependencies beyond Node, so the checkers' scripted HTTP
 * server uses the same guard.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIPv4 } from 'node:net';
import type { ProxyHttpOptions } from './types.js';

/** A configuration `serveStreamableHttp` refuses to start with (a usage error for the CLI). */
export class ProxyHttpConfigError extends Error {}

/** Whether `host` (a `--listen` host, brackets removed) names the loopback interface only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return isIPv4(v4) && v4.startsWith('127.');
}

/** Refuses a non-loopback listener without a token (unless allowed) or without allowed hosts. */
export function checkHttpConfig(host: string, options: ProxyHttpOptions): void {
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

/** A refused request: why (its answer is `REFUSALS[reason]`), its status and extra headers. */
export interface Refusal {
  reason: 'host_not_allowed' | 'origin_not_allowed' | 'unauthorized';
  status: 401 | 403;
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
  if (!hostOk) return { reason: 'host_not_allowed', status: 403 };
  if (headers.origin !== undefined) {
    const origin = originOf(headers.origin);
    const originOk =
      origin !== undefined &&
      (guard.origins.has(origin.href) ||
        (guard.loopback &&
          (origin.protocol === 'http:' || origin.protocol === 'https:') &&
          LOOPBACK_NAMES.has(origin.hostname) &&
          (origin.port === '' || origin.port === local)));
    if (!originOk) return { reason: 'origin_not_allowed', status: 403 };
  }
  if (guard.tokenDigest !== undefined) {
    const m = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
    // Both sides hashed: equal lengths always, so neither the comparison nor its length leaks.
    if (m?.[1] === undefined || !timingSafeEqual(digest(m[1]), guard.tokenDigest))
      return {
        reason: 'unauthorized',
        status: 401,
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
