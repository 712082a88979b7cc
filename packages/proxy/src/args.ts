/**
 * The `mcp-failure-proxy` command line, parsed without I/O. Exit codes of the CLI: 0 after a
 * clean shutdown, 1 when serving failed (e.g. the port is taken), 2 for a usage error.
 */
import { parseArgs } from 'node:util';
import type { ProxyHttpLimits } from './http-limits.js';
import { firstLineOf } from '@omcp/tool-failure/wire';
import { splitAtDashes } from '@omcp/instrumentation-mcp/executable';
import type { CircuitBreakerOptions } from '@omcp/instrumentation-mcp/retry';

/** The HTTP limit flags and the limit each sets (a count, or milliseconds). */
const LIMIT_FLAGS = Object.freeze({
  'max-sessions': 'maxSessions',
  'session-idle-timeout': 'sessionIdleMs',
  'max-in-flight-per-session': 'maxInFlightPerSession',
  'max-in-flight': 'maxInFlight',
  'max-body-bytes': 'maxBodyBytes',
  'max-buffered-bytes': 'maxBufferedBytes',
  'max-header-bytes': 'maxHeaderBytes',
  'headers-timeout': 'headersTimeoutMs',
  'request-timeout': 'requestTimeoutMs',
  'keep-alive-timeout': 'keepAliveTimeoutMs',
} satisfies Record<string, keyof ProxyHttpLimits>);
type LimitFlag = keyof typeof LIMIT_FLAGS;
const LIMIT_OPTIONS = Object.fromEntries(
  Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: 'string' as const }]),
) as Record<LimitFlag, { type: 'string' }>;

/** Exit codes. */
export const PROXY_EXIT = Object.freeze({ ok: 0, failed: 1, usage: 2 });

export const PROXY_USAGE = `Usage: mcp-failure-proxy (--stdio | --listen HOST:PORT) (--upstream-url URL | -- COMMAND [ARGS...]) [options]

Relays MCP between clients and one upstream server, preserving tool failures
(_meta["io.modelcontextprotocol/toolFailure"]) unchanged, and continuing the trace.

Downstream (clients):
  --stdio               Serve one client on standard input and output
  --listen HOST:PORT    Serve Streamable HTTP at http://HOST:PORT/mcp (PORT 0: any free port)
Upstream (server):
  -- COMMAND [ARGS...]  Start the server as a child process and speak stdio with it
  --upstream-url URL    Connect to a Streamable HTTP server
Downstream access (HTTP; DNS-rebinding protection is always on):
  --allowed-hosts LIST    Host header values accepted, comma-separated (a name without a
                          port matches any port). On a loopback address localhost,
                          127.0.0.1 and [::1] (bare or with the port) are always accepted;
                          on any other address this list is required
  --allowed-origins LIST  Origin values accepted, comma-separated (scheme://host[:port]);
                          a request without Origin passes. Default: the loopback origins
                          on a loopback address, none otherwise
  --auth-token-file PATH  Require "Authorization: Bearer TOKEN", TOKEN read from PATH
  --auth-token-env NAME   Same, TOKEN read from the environment variable NAME
  --allow-unauthenticated
                          Serve a non-loopback address without a token (refused otherwise)
HTTP limits (--listen only; each refusal is a JSON-RPC error, counted in
mcp.proxy.refused_requests):
  --stateless             Keep no session: each POST is served on its own, so replicas
                          behind a load balancer can serve one client (GET/DELETE: 405)
  --revision 2026-07-28   Also serve the 2026-07-28 revision (no session, no initialize,
                          server/discover, the version in each request's _meta), with
                          @modelcontextprotocol/server 2.x; implies --stateless
  --max-sessions N        Sessions open at once (default 1000; one more: 503)
  --session-idle-timeout MS
                          Close a session idle this long (default 600000)
  --max-in-flight-per-session N
                          Requests of one session answered at once (default 64; then 429)
  --max-in-flight N       Requests answered at once on the endpoint (default 4096; then 429)
  --max-body-bytes N      Largest request body (default 4194304; larger: 413)
  --max-buffered-bytes N  Request bodies read at once, in bytes (default 67108864; then 503)
  --max-header-bytes N    Largest request head (default 16384; larger: 431)
  --headers-timeout MS    Longest wait for a request's headers (default 10000; then 408)
  --request-timeout MS    Longest wait for a whole request (default 30000; then 408)
  --keep-alive-timeout MS Keep an idle connection open this long (default 65000)
Upstream credentials (--upstream-url only):
  --upstream-header-file PATH  Send the header "Name: value" read from PATH upstream
  --upstream-header-env NAME   Same, "Name: value" read from the environment variable NAME
Options:
  --timeout MS          Longest wait for one upstream answer (default 30000)
  --connect-timeout MS  Longest wait to reach the upstream and initialize it (default 10000)
  --retry               Retry reliability failures of idempotent tools upstream (default: never)
  --circuit-breaker     Stop calling an upstream tool that keeps failing (reliability failures,
                        transport errors): answer reliability/circuit_open at once while its
                        circuit is open, then let one probe through (default: off)
  --circuit-failures N  Consecutive failures that open a tool's circuit (default 5)
  --circuit-open-ms MS  How long a circuit stays open before a probe (default 10000)
  -h, --help            Show this help

Telemetry: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) set, the proxy starts
OpenTelemetry with this package's instrumentation; its spans join the caller's trace.
Exit status: 0 clean shutdown, 1 serving failed, 2 usage error or refused configuration.
`;

/** Every option of the command line (each one is listed in `PROXY_USAGE`, a test checks). */
export const PROXY_OPTIONS = {
  stdio: { type: 'boolean' },
  listen: { type: 'string' },
  'upstream-url': { type: 'string' },
  timeout: { type: 'string' },
  'connect-timeout': { type: 'string' },
  retry: { type: 'boolean' },
  'circuit-breaker': { type: 'boolean' },
  'circuit-failures': { type: 'string' },
  'circuit-open-ms': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'allowed-origins': { type: 'string' },
  'auth-token-file': { type: 'string' },
  'auth-token-env': { type: 'string' },
  'allow-unauthenticated': { type: 'boolean' },
  'upstream-header-file': { type: 'string' },
  'upstream-header-env': { type: 'string' },
  stateless: { type: 'boolean' },
  revision: { type: 'string' },
  ...LIMIT_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

/** Where a secret is read from: never the command line itself. */
export type SecretSource = { from: 'file'; path: string } | { from: 'env'; name: string };

/** The Streamable HTTP downstream and who may use it. */
export interface HttpDownstream {
  kind: 'http';
  host: string;
  port: number;
  allowedHosts: string[] | undefined;
  allowedOrigins: string[] | undefined;
  authToken: SecretSource | undefined;
  allowUnauthenticated: boolean;
  stateless: boolean;
  /** `--revision 2026-07-28`: also serve that revision (and so keep no session). */
  revision: '2026-07-28' | undefined;
  /** Only the limits given on the command line; the rest keep their defaults. */
  limits: Partial<ProxyHttpLimits>;
}

/** What the command line asks for. */
export interface ProxyCliOptions {
  downstream: { kind: 'stdio' } | HttpDownstream;
  upstream:
    | { kind: 'stdio'; command: string; args: string[] }
    | { kind: 'http'; url: string; header: SecretSource | undefined };
  timeoutMs: number | undefined;
  connectTimeoutMs: number | undefined;
  retry: boolean;
  /** `--circuit-breaker`, with the thresholds given; `false` without it. */
  circuitBreaker: CircuitBreakerOptions | false;
}

/** A usage mistake, reported in one line. */
export class ProxyUsageError extends Error {}

/** Parses the arguments after the executable; `'help'` when help was asked for. */
export function parseProxyArgs(argv: readonly string[]): ProxyCliOptions | 'help' {
  const { own, command } = splitAtDashes(argv);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      strict: true,
      allowPositionals: false,
      options: PROXY_OPTIONS,
    }));
  } catch (error) {
    // Node's parser explains some mistakes over several lines; the first one says what is wrong.
    throw new ProxyUsageError(firstLineOf(error));
  }
  if (values.help === true) return 'help';
  if ((values.stdio === true) === (values.listen !== undefined))
    throw new ProxyUsageError('choose one downstream: --stdio or --listen HOST:PORT');
  const url = values['upstream-url'];
  if ((url !== undefined) === command.length > 0)
    throw new ProxyUsageError('choose one upstream: --upstream-url URL or -- COMMAND [ARGS...]');
  const authToken = secretSource(
    '--auth-token-file',
    values['auth-token-file'],
    '--auth-token-env',
    values['auth-token-env'],
  );
  const header = secretSource(
    '--upstream-header-file',
    values['upstream-header-file'],
    '--upstream-header-env',
    values['upstream-header-env'],
  );
  if (values.listen === undefined) {
    const httpOnly = [
      'allowed-hosts',
      'allowed-origins',
      'auth-token-file',
      'auth-token-env',
      'allow-unauthenticated',
      'stateless',
      'revision',
      ...(Object.keys(LIMIT_FLAGS) as LimitFlag[]),
    ] as const;
    const misplaced = httpOnly.find((k) => values[k] !== undefined);
    if (misplaced !== undefined)
      throw new ProxyUsageError(`--${misplaced} applies to --listen only`);
  }
  if (url === undefined && header !== undefined)
    throw new ProxyUsageError('--upstream-header-file/--upstream-header-env need --upstream-url');
  return {
    downstream:
      values.listen === undefined
        ? { kind: 'stdio' }
        : {
            kind: 'http',
            ...listenAddress(values.listen),
            allowedHosts: list('--allowed-hosts', values['allowed-hosts']),
            allowedOrigins: list('--allowed-origins', values['allowed-origins']),
            authToken,
            allowUnauthenticated: values['allow-unauthenticated'] === true,
            stateless: values.stateless === true || values.revision !== undefined,
            revision: revisionOf(values.revision),
            limits: limitsOf(values, values.stateless === true || values.revision !== undefined),
          },
    upstream:
      url === undefined
        ? { kind: 'stdio', command: command[0] ?? '', args: command.slice(1) }
        : { kind: 'http', url: httpUrl(url), header },
    timeoutMs: millis('--timeout', values.timeout),
    connectTimeoutMs: millis('--connect-timeout', values['connect-timeout']),
    retry: values.retry === true,
    circuitBreaker: circuitBreakerOf(values),
  };
}

/** `--circuit-breaker` and its thresholds (which need it). */
function circuitBreakerOf(values: {
  'circuit-breaker'?: boolean;
  'circuit-failures'?: string;
  'circuit-open-ms'?: string;
}): CircuitBreakerOptions | false {
  const failures = values['circuit-failures'];
  const openMs = values['circuit-open-ms'];
  if (values['circuit-breaker'] !== true) {
    if (failures !== undefined || openMs !== undefined)
      throw new ProxyUsageError(
        `--${failures !== undefined ? 'circuit-failures' : 'circuit-open-ms'} needs --circuit-breaker`,
      );
    return false;
  }
  const options: CircuitBreakerOptions = {};
  if (failures !== undefined) options.failureThreshold = count('--circuit-failures', failures);
  if (openMs !== undefined) options.openMs = millis('--circuit-open-ms', openMs);
  return options;
}

/** `--revision`: the one revision the SDK 1.x server cannot serve. */
function revisionOf(text: string | undefined): '2026-07-28' | undefined {
  if (text === undefined || text === '2026-07-28') return text;
  throw new ProxyUsageError(
    `--revision takes 2026-07-28 (the earlier revisions are always served), got "${text}"`,
  );
}

/** The limits that only sessions have: given with --stateless they would do nothing. */
const SESSION_LIMIT_FLAGS: readonly LimitFlag[] = [
  'max-sessions',
  'session-idle-timeout',
  'max-in-flight-per-session',
];

function limitsOf(
  values: Partial<Record<LimitFlag, string>>,
  stateless: boolean,
): Partial<ProxyHttpLimits> {
  const sessionOnly = SESSION_LIMIT_FLAGS.find((flag) => values[flag] !== undefined);
  if (stateless && sessionOnly !== undefined)
    throw new ProxyUsageError(
      `--${sessionOnly} applies to sessions; --stateless (and --revision 2026-07-28) keep none`,
    );
  const limits: Partial<ProxyHttpLimits> = {};
  for (const [flag, key] of Object.entries(LIMIT_FLAGS) as Array<
    [LimitFlag, keyof ProxyHttpLimits]
  >) {
    const text = values[flag];
    if (text === undefined) continue;
    limits[key] = key.endsWith('Ms') ? millis(`--${flag}`, text) : count(`--${flag}`, text);
  }
  return limits;
}

function count(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || !Number.isSafeInteger(n))
    throw new ProxyUsageError(`${flag} expects a whole number from 1, got "${text}"`);
  return n;
}

function secretSource(
  fileFlag: string,
  path: string | undefined,
  envFlag: string,
  name: string | undefined,
): SecretSource | undefined {
  if (path !== undefined && name !== undefined)
    throw new ProxyUsageError(`choose one of ${fileFlag} and ${envFlag}`);
  if (path === '' || name === '')
    throw new ProxyUsageError(`${path === '' ? fileFlag : envFlag} expects a non-empty value`);
  if (path !== undefined) return { from: 'file', path };
  return name === undefined ? undefined : { from: 'env', name };
}

function list(flag: string, text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new ProxyUsageError(`${flag} expects a comma-separated list`);
  return items;
}

function listenAddress(text: string): { host: string; port: number } {
  const m = /^(.+):(\d{1,5})$/.exec(text);
  const port = Number(m?.[2]);
  if (m?.[1] === undefined || !(port >= 0 && port <= 65_535))
    throw new ProxyUsageError(`--listen expects HOST:PORT, got "${text}"`);
  return { host: m[1].replace(/^\[(.*)\]$/, '$1'), port };
}

function httpUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProxyUsageError(`--upstream-url is not a URL: "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ProxyUsageError(`--upstream-url must be http or https, got "${text}"`);
  return url.href;
}

/** The longest delay a Node timer can wait (about 24.8 days); beyond it Node waits 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

function millis(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n <= 0 || n > MAX_TIMER_MS)
    throw new ProxyUsageError(
      `${flag} expects a number of milliseconds from 1 to ${MAX_TIMER_MS}, got "${text}"`,
    );
  return n;
}
