import { markRelayed, markRelaying } from '../shared/relayed.js';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { relayResultsVerbatim } from './verbatim.js';
import {
  getToolAnnotations,
  hasListedAnyTool,
  hasListedTool,
  rememberToolList,
  retryHintsOf,
} from '../shared/tool-annotations.js';
import {
  createToolRetry,
  isCircuitOpenAnswer,
  type ToolRetry,
  type ToolRetryClient,
} from '../retry/with-tool-retry.js';
import type { ToolRetryPolicy } from '../retry/types.js';
import { PACKAGE_VERSION } from '../version.js';
import { Downstreams, plain, type Downstream, type DownstreamServer } from './downstreams.js';
import { modernServer, type ModernServer } from './modern.js';
import type { DownstreamRelay, RelayExtra, UpstreamIdentity } from './relay-types.js';
import { faultLog, logFailure, ownFailure, toolNameOf, unrelayable } from './faults.js';
import { MAX_RELAYED_DEPTH, forwardParams, nestedBeyond, upstreamFailureInit } from './forward.js';
import { loadSdk, type ModernSdk, type Sdk } from './sdk.js';
import type { ToolFailureProxy, ToolFailureProxyOptions } from './types.js';
import { RelayedRpcError, UnsendableRequest, UpstreamError, UpstreamLink } from './upstream.js';
import { INTERNAL_ERROR } from '../shared/jsonrpc.js';

/** Notifications the downstream `Server` handles itself (initialize, ping are its requests). */
const LOCAL_NOTIFICATIONS = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
]);

type Params = Record<string, unknown>;
type Notification = { method: string; params?: Params };

/** A per-request 2026-07-28 server for one proxy (see `modernServerOf`). */
const MODERN_SERVERS = new WeakMap<ToolFailureProxy, (sdk: ModernSdk) => Promise<ModernServer>>();

/**
 * How `serveStreamableHttp` gets a 2.x `Server` relaying to `proxy`'s upstream, for one
 * 2026-07-28 request: `undefined` for an object that is not a proxy this module made.
 */
export function modernServerOf(
  proxy: ToolFailureProxy,
): ((sdk: ModernSdk) => Promise<ModernServer>) | undefined {
  return MODERN_SERVERS.get(proxy);
}

/**
 * Creates a relaying MCP proxy that preserves tool failures: results (their whole `_meta`,
 * `io.modelcontextprotocol/toolFailure` and its `correlationId` included) reach the caller
 * exactly as the upstream sent them; the proxy adds a failure object only when the upstream
 * gave no answer (down, crashed, timed out, garbage), with its own span's trace ID as
 * `correlationId`. It retries only when `retry` is set. With this package's instrumentation
 * active, the proxy's SERVER and CLIENT spans join the caller's trace and parent the upstream's.
 */
export function createToolFailureProxy(options: ToolFailureProxyOptions): ToolFailureProxy {
  if (typeof options?.upstream !== 'function')
    throw new TypeError('createToolFailureProxy: options.upstream must be a function');
  const timeoutMs = positive(options.timeoutMs, 30_000);
  const connectTimeoutMs = positive(options.connectTimeoutMs, 10_000);
  const log = faultLog(options.log);
  const downstreams = new Downstreams(log);
  let link: UpstreamLink | undefined;
  /** The upstream as the retry engine calls it; tools/list results relayed are remembered for it. */
  let upstreamClient: UpstreamClient | undefined;
  // One retry engine for the upstream: its budget caps retries across every downstream caller,
  // and its circuits are shared by them too.
  const retry = upstreamEngine(options, () => upstreamClient?.adapter);
  // With a breaker, circuits are keyed by the upstream's tools: walked before an unlisted call.
  const knowTools = circuitBreakerOf(options) === false ? undefined : toolListWalker(log);
  let sdkLoad: Promise<Sdk> | undefined;
  let closed = false;

  const ready = async (): Promise<{ sdk: Sdk; link: UpstreamLink }> => {
    const sdk = await (sdkLoad ??= loadSdk());
    link ??= new UpstreamLink(
      sdk,
      options.upstream,
      timeoutMs,
      connectTimeoutMs,
      options.clientInfo ?? { name: 'mcp-failure-proxy', version: PACKAGE_VERSION },
    );
    upstreamClient ??= upstreamClientOf(link, retry);
    link.onnotification = (notification) => downstreams.deliver(notification);
    return { sdk, link };
  };

  const relay = async (
    upstream: UpstreamLink,
    method: string,
    rawParams: unknown,
    extra: RelayExtra,
    ledger: Map<unknown, unknown>,
  ): Promise<Params> => {
    // Checked before anything else sees it: the retry engine and its circuits never do.
    if (nestedBeyond(rawParams, MAX_RELAYED_DEPTH))
      return unrelayable(log, method, rawParams, `nest deeper than ${MAX_RELAYED_DEPTH} levels`);
    const proxySpan = trace.getSpanContext(context.active());
    const params = forwardParams(
      rawParams,
      proxySpan !== undefined && isSpanContextValid(proxySpan),
    );
    const token = (params?._meta as Params | undefined)?.progressToken;
    const requestOptions = {
      signal: extra.signal,
      ...(token === undefined
        ? {}
        : {
            onprogress: (progress: Params) =>
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { ...progress, progressToken: token },
                })
                .catch(() => undefined),
          }),
    };
    try {
      const client = upstreamClient!;
      if (method === 'tools/call') await knowTools?.(client.adapter, toolNameOf(params));
      const result =
        method === 'tools/call' && client.retrying !== undefined
          ? ((await client.retrying.callTool(
              (params ?? {}) as { name: string },
              requestOptions,
            )) as Params)
          : await upstream.request(method, params, requestOptions);
      // The engine's open circuit answered: the proxy's own failure, not a relayed result.
      if (isCircuitOpenAnswer(result)) {
        logFailure(log, method, toolNameOf(params), result, 'not sent upstream');
        return result;
      }
      // A result no transport could write on (JSON.stringify would overflow): the upstream's fault.
      if (nestedBeyond(result, MAX_RELAYED_DEPTH))
        throw new UpstreamError({
          kind: 'malformed',
          detail: `the result nests deeper than ${MAX_RELAYED_DEPTH} levels`,
        });
      if (method === 'tools/list') rememberToolList(client.adapter, result);
      ledger.set(extra.requestId, result);
      // Tell a server-side instrumentation in this process that the result is relayed, not ours.
      return markRelayed(result);
    } catch (error) {
      if (error instanceof RelayedRpcError) throw error;
      if (error instanceof UnsendableRequest)
        return unrelayable(log, method, rawParams, `cannot be sent (${error.message})`);
      if (!(error instanceof UpstreamError)) throw error;
      if (method !== 'tools/call') {
        log(`${plain(method)}: ${INTERNAL_ERROR} (${error.message})`);
        throw Object.assign(new Error(`mcp-failure-proxy: ${error.message}`), {
          code: INTERNAL_ERROR,
        });
      }
      const tool = toolNameOf(params);
      // correlationId: the trace ID of the proxy's own span for this call (or a random one).
      const idempotent = getToolAnnotations(upstreamClient!.adapter, tool)?.idempotentHint === true;
      return ownFailure(log, method, tool, upstreamFailureInit(error.problem, tool, idempotent));
    }
  };

  const fallbackInfo = options.serverInfo ?? {
    name: 'mcp-failure-proxy',
    version: PACKAGE_VERSION,
  };

  /** The relay behind one downstream server, whichever SDK line the server is from. */
  const relayFor = (server: DownstreamServer, upstream: UpstreamLink): DownstreamRelay => {
    const ledger = new Map<unknown, unknown>();
    const downstream: Downstream = downstreams.add(server);
    return {
      ledger,
      async request(method, params, extra) {
        const end = downstreams.begin(downstream, extra);
        try {
          return await relay(upstream, method, params, extra, ledger);
        } finally {
          end();
        }
      },
      async notify(notification) {
        if (LOCAL_NOTIFICATIONS.has(notification.method)) return;
        await upstream.notify(notification);
      },
      closed() {
        downstreams.remove(downstream);
        ledger.clear();
      },
    };
  };

  const proxy: ToolFailureProxy = {
    async connect(transport: Transport): Promise<void> {
      if (closed) throw new Error('createToolFailureProxy: proxy is closed');
      const { sdk, link: upstream } = await ready();
      const { capabilities, serverInfo, instructions } = await identityOf(upstream, fallbackInfo);
      const server = new sdk.Server(serverInfo, {
        capabilities,
        ...(instructions === undefined ? {} : { instructions }),
      });
      // The upstream's capabilities (its extension declarations among them) are relayed as they
      // came: a server-side instrumentation in this process adds no declaration of its own.
      markRelaying(server);
      // The Server answers logging/setLevel itself when logging is declared; relay it instead.
      server.removeRequestHandler('logging/setLevel');
      const relaying = relayFor(server, upstream);
      server.fallbackRequestHandler = async (request, extra) =>
        relaying.request(request.method, request.params, extra as RelayExtra);
      server.fallbackNotificationHandler = async (notification) =>
        relaying.notify(notification as Notification);
      relayResultsVerbatim(transport, relaying.ledger);
      server.onclose = () => relaying.closed();
      await server.connect(transport);
    },

    async close(): Promise<void> {
      closed = true;
      await Promise.all(downstreams.servers().map((s) => s.close().catch(() => undefined)));
      await link?.close();
    },
  };
  MODERN_SERVERS.set(proxy, async (modern) => {
    if (closed) throw new Error('createToolFailureProxy: proxy is closed');
    const { link: upstream } = await ready();
    return modernServer(modern, await identityOf(upstream, fallbackInfo), (server) =>
      relayFor(server, upstream),
    );
  });
  return proxy;
}

/** What a downstream server mirrors of the upstream: its own, or `serverInfo` while it is down. */
async function identityOf(
  upstream: UpstreamLink,
  serverInfo: UpstreamIdentity['serverInfo'],
): Promise<UpstreamIdentity> {
  const identity: UpstreamIdentity = {
    capabilities: { tools: {} },
    serverInfo,
    instructions: undefined,
  };
  try {
    const client = await upstream.get();
    identity.capabilities = client.getServerCapabilities() ?? {};
    identity.serverInfo = client.getServerVersion() ?? serverInfo;
    identity.instructions = client.getInstructions();
  } catch {
    // Upstream down: serve anyway, so that every call gets a clear failure, not a refusal.
  }
  return identity;
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

/** The upstream as a client: what the retry engine wraps, and the key of its tool annotations. */
interface UpstreamClient {
  adapter: {
    callTool(p: { name: string }, options?: RequestOptions): Promise<Params>;
    listTools(p?: { cursor?: string }): Promise<Params>;
  };
  retrying: ToolRetryClient<UpstreamClient['adapter']> | undefined;
}

type RequestOptions = { signal: AbortSignal; onprogress?: (p: Params) => void };

/**
 * The upstream's retry engine: the `retry` policy, with `circuitBreaker` when set; for a breaker
 * without `retry`, an engine of one attempt (never a retry), whose annotations are only those of
 * relayed `tools/list` results (the proxy lists nothing of its own).
 */
function upstreamEngine(
  options: ToolFailureProxyOptions,
  adapter: () => object | undefined,
): ToolRetry | undefined {
  const policy = policyOf(options);
  const circuitBreaker = circuitBreakerOf(options);
  const circuitTools = listedTools(adapter, policy?.circuitTools);
  if (policy !== undefined) return createToolRetry({ ...policy, circuitBreaker, circuitTools });
  if (circuitBreaker === false) return undefined;
  return createToolRetry({
    maxAttempts: 1,
    retryBudget: false,
    circuitBreaker,
    circuitTools,
    getToolAnnotations: (name) => {
      const client = adapter();
      return client === undefined ? undefined : getToolAnnotations(client, name);
    },
  });
}

function policyOf(options: ToolFailureProxyOptions): ToolRetryPolicy | undefined {
  if (options.retry === undefined || options.retry === false) return undefined;
  return options.retry === true ? {} : options.retry;
}

/** The breaker in force: `circuitBreaker`, else the `retry` policy's. */
function circuitBreakerOf(options: ToolFailureProxyOptions): ToolRetryPolicy['circuitBreaker'] {
  return options.circuitBreaker ?? policyOf(options)?.circuitBreaker ?? false;
}

/**
 * Circuits only for tools the upstream has listed (in a `tools/list` the proxy relayed, or its
 * own walk before a call of a tool not listed yet), so a caller inventing names opens no circuit
 * and evicts none.
 */
function listedTools(
  adapter: () => object | undefined,
  also: ((name: string) => boolean) | undefined,
): (name: string) => boolean {
  return (name) => {
    const client = adapter();
    if (client === undefined || !hasListedTool(client, name)) return false;
    return also === undefined || also(name);
  };
}

/**
 * Before the first call of a tool not listed yet: the upstream's tools, walked once (every page)
 * so that its circuits are keyed by the tools it has. A failed walk leaves the call without a
 * circuit, said once; a later call walks again.
 */
function toolListWalker(
  log: (line: string) => void,
): (client: UpstreamClient['adapter'], tool: string) => Promise<void> {
  let said = false;
  return async (client, tool) => {
    if (hasListedTool(client, tool)) return;
    // retryHintsOf walks once per client, and forgets a walk that failed.
    await retryHintsOf(client, tool, (cursor) =>
      client.listTools(cursor === undefined ? undefined : { cursor }),
    ).catch(() => undefined);
    if (!said && !hasListedAnyTool(client)) {
      said = true;
      log(
        'circuit breaker: the upstream listed no tools, so calls have no circuit until a tools/list answers (said once)',
      );
    }
  };
}

function upstreamClientOf(link: UpstreamLink, retry: ToolRetry | undefined): UpstreamClient {
  const adapter: UpstreamClient['adapter'] = {
    callTool: (p, requestOptions) => link.request('tools/call', p, requestOptions),
    listTools: (p) => link.request('tools/list', p ?? {}),
  };
  return { adapter, retrying: retry?.wrap(adapter) };
}
