import type { MeterProvider } from '@opentelemetry/api';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ProxyHttpLimits } from './http-limits.js';
import type { CircuitBreakerOptions, ToolRetryPolicy } from '@omcp/instrumentation-mcp/retry';

/** Opens a fresh transport to the upstream server (called on first use and after it is lost). */
export type UpstreamTransportFactory = () => Transport | Promise<Transport>;

/** Configuration of `createToolFailureProxy`. */
export interface ToolFailureProxyOptions {
  /** Opens the transport to the upstream MCP server; not started yet (the proxy's client starts it). */
  upstream: UpstreamTransportFactory;
  /**
   * Longest wait for one upstream request, in milliseconds; past it the caller gets a
   * `reliability` / `timeout` failure (or a JSON-RPC error for methods other than `tools/call`).
   * @default 30_000
   */
  timeoutMs?: number;
  /** Longest wait to open the upstream connection (spawn or connect, then `initialize`). @default 10_000 */
  connectTimeoutMs?: number;
  /**
   * Retry `tools/call` upstream with `withToolRetry` under this policy. Off unless set: a
   * relaying proxy does not retry on its own. `true` uses the default policy.
   * @default false
   */
  retry?: boolean | ToolRetryPolicy;
  /**
   * A circuit breaker per upstream tool, in the upstream's one retry engine (with or without
   * `retry`): after `failureThreshold` consecutive reliability failures or transport errors of a
   * tool, its calls are answered at once for `openMs` with a `reliability` / `circuit_open`
   * failure (`retryable: true`, `retryNotBefore` at the half-open time, the proxy span's trace ID
   * as `correlationId`) and not sent upstream; then one probe decides. Off unless set, like
   * `retry`: see docs/proxy.md, "Circuit breaking". `true` uses the defaults; when unset, a
   * `circuitBreaker` in the `retry` policy applies.
   * @default false
   */
  circuitBreaker?: boolean | CircuitBreakerOptions;
  /**
   * Whether the callers' propagated context may reach the upstream. `false`: the `traceparent`,
   * `tracestate` and `baggage` of a request's `_meta` are dropped before it goes upstream (with
   * telemetry in the proxy its CLIENT span's context replaces them), so a caller cannot hand the
   * tool server baggage such as `tenant=…,role=admin`. The CLI takes it from
   * `OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT`, as the instrumentation does.
   * @default true
   */
  trustIncomingContext?: boolean;
  /** `serverInfo` announced downstream while the upstream's own is unknown (upstream down). */
  serverInfo?: { name: string; version: string };
  /** `clientInfo` the proxy sends upstream in `initialize`. */
  clientInfo?: { name: string; version: string };
  /**
   * Where the proxy reports each fault it answers itself (an upstream that could not answer,
   * input it cannot relay, an open circuit, a result it cannot send on), one line each,
   * without arguments or secrets; a throwing logger is ignored. The CLI writes them to stderr.
   * @default the OpenTelemetry diagnostic logger (`diag.warn`)
   */
  log?: (line: string) => void;
}

/** A running relay: one upstream connection shared by any number of downstream connections. */
export interface ToolFailureProxy {
  /** Serves one downstream connection on `transport` (stdio, a Streamable HTTP session, in-memory). */
  connect(transport: Transport): Promise<void>;
  /** Closes every downstream connection and the upstream one (a stdio upstream child is killed). */
  close(): Promise<void>;
}

/** Who may talk to the Streamable HTTP endpoint of `serveStreamableHttp`. */
export interface ProxyHttpOptions {
  /**
   * `Host` values accepted, added to the loopback names (`localhost`, `127.0.0.1`, `[::1]`, bare
   * or with the listening port) that a loopback listener always accepts; required on any other
   * address. An entry without a port matches that name on any port.
   */
  allowedHosts?: readonly string[];
  /**
   * `Origin` values accepted when a request carries one (a request without `Origin` is a
   * non-browser client and passes). Default: the loopback origins when listening on loopback,
   * none otherwise.
   */
  allowedOrigins?: readonly string[];
  /** The bearer token every request must carry in `Authorization`; never logged. */
  authToken?: string;
  /** Serve a non-loopback address without `authToken` (refused otherwise). @default false */
  allowUnauthenticated?: boolean;
  /** Bounds on sessions, requests in flight, sizes and times; see `DEFAULT_HTTP_LIMITS`. */
  limits?: Partial<ProxyHttpLimits>;
  /**
   * Keep no session: every POST is served on its own and GET/DELETE are refused, so several
   * replicas behind a load balancer serve one client. @default false
   */
  stateless?: boolean;
  /**
   * Also serve this revision: `'2026-07-28'` (stateless, no `initialize`, `server/discover`,
   * the protocol version in each request's `_meta`), through `@modelcontextprotocol/server`
   * 2.x, which must be installed. Implies `stateless`: requests of the earlier revisions are
   * served as a stateless endpoint serves them.
   */
  revision?: '2026-07-28';
  /** Where the endpoint's metrics go. @default the global meter provider */
  meterProvider?: MeterProvider;
  /**
   * Where the endpoint reports a request it failed to serve (an error inside its handler), one
   * line each. @default the OpenTelemetry diagnostic logger (`diag.warn`)
   */
  log?: (line: string) => void;
}
