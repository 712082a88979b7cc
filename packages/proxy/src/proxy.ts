import {
  markRelayed,
  markRelaying,
  hasListedAnyTool,
  hasListedTool,
  rememberToolList,
  retryHintsOf,
} from '@omcp/instrumentation-mcp/relay';
import { isCircuitOpenAnswer } from '@omcp/instrumentation-mcp/retry';
import { INTERNAL_ERROR, isRecord } from '@omcp/tool-failure/wire';
import { PROXY_PACKAGE_VERSION } from './version.js';
import {
  createToolRetry,
  getToolAnnotations,
  type ToolRetry,
  type ToolRetryClient,
  type ToolRetryPolicy,
} from '@omcp/instrumentation-mcp/retry';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { relayResultsVerbatim } from './verbatim.js';
import { Downstreams, plain, type Downstream, type DownstreamServer } from './downstreams.js';
import { modernServer, type ModernServer } from './modern.js';
import type { DownstreamRelay, RelayExtra, UpstreamIdentity } from './relay-types.js';
import { faultLog, logFailure, ownFailure, toolNameOf, unrelayable } from './faults.js';
import { MAX_RELAYED_DEPTH, forwardParams, nestedBeyond, upstreamFailureInit } from './forward.js';
import { loadSdk, type ModernSdk, type Sdk } from './sdk.js';
import type { ToolFailureProxy, ToolFailureProxyOptions } from './types.js';
import { RelayedRpcError, UnsendableRequest, UpstreamError, UpstreamLink } from './upstream.js';

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
  const core = new ProxyCore(options);
  const proxy: ToolFailureProxy = {
    connect: (transport) => core.connect(transport),
    close: () => core.close(),
  };
  MODERN_SERVERS.set(proxy, (modern) => core.modernServer(modern));
  return proxy;
}

/** The upstream side once ready: the SDK, the one link, and the client the retry engine calls. */
interface Ready {
  sdk: Sdk;
  link: UpstreamLink;
  client: UpstreamClient;
}

/**
 * One proxy for its lifetime: the upstream link and its retry engine, made on first use and
 * shared by every downstream connection, and those connections.
 */
class ProxyCore {
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly log: (line: string) => void;
  private readonly downstreams: Downstreams;
  /** One retry engine for the upstream: its budget and circuits are shared by every caller. */
  private readonly retry: ToolRetry | undefined;
  /** With a breaker, circuits are keyed by the upstream's tools: walked before an unlisted call. */
  private readonly knowTools: ToolListWalker | undefined;
  private readonly fallbackInfo: UpstreamIdentity['serverInfo'];
  private sdkLoad: Promise<Sdk> | undefined;
  private link: UpstreamLink | undefined;
  /** The upstream as the retry engine calls it; tools/list results relayed are remembered for it. */
  private upstreamClient: UpstreamClient | undefined;
  private closed = false;
  private saidUnreadable = false;

  constructor(private readonly options: ToolFailureProxyOptions) {
    this.timeoutMs = positive(options.timeoutMs, 30_000);
    this.connectTimeoutMs = positive(options.connectTimeoutMs, 10_000);
    this.log = faultLog(options.log);
    this.downstreams = new Downstreams(this.log);
    this.retry = upstreamEngine(options, () => this.upstreamClient?.adapter);
    this.knowTools = circuitBreakerOf(options) === false ? undefined : toolListWalker(this.log);
    this.fallbackInfo = options.serverInfo ?? {
      name: 'mcp-failure-proxy',
      version: PROXY_PACKAGE_VERSION,
    };
  }

  /** Serves one downstream connection on `transport` with an SDK 1.x `Server`. */
  async connect(transport: Transport): Promise<void> {
    if (this.closed) throw new Error('createToolFailureProxy: proxy is closed');
    const ready = await this.ready();
    const { capabilities, serverInfo, instructions } = await identityOf(
      ready.link,
      this.fallbackInfo,
    );
    const server = new ready.sdk.Server(serverInfo, {
      capabilities,
      ...(instructions === undefined ? {} : { instructions }),
    });
    // The upstream's capabilities (its extension declarations among them) are relayed as they
    // came: a server-side instrumentation in this process adds no declaration of its own.
    markRelaying(server);
    // The Server answers logging/setLevel itself when logging is declared; relay it instead.
    server.removeRequestHandler('logging/setLevel');
    const relaying = this.relayFor(server, ready);
    server.fallbackRequestHandler = async (request, extra) =>
      relaying.request(request.method, request.params, extra as RelayExtra);
    server.fallbackNotificationHandler = async (notification) =>
      relaying.notify(notification as Notification);
    relayResultsVerbatim(transport, relaying.ledger);
    server.onclose = () => relaying.closed();
    await server.connect(transport);
  }

  /** A 2.x `Server` for one 2026-07-28 request, relaying through the same link. */
  async modernServer(modern: ModernSdk): Promise<ModernServer> {
    if (this.closed) throw new Error('createToolFailureProxy: proxy is closed');
    const ready = await this.ready();
    return modernServer(modern, await identityOf(ready.link, this.fallbackInfo), (server) =>
      this.relayFor(server, ready),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.downstreams.servers().map((s) => s.close().catch(() => undefined)));
    await this.link?.close();
  }

  private async ready(): Promise<Ready> {
    const sdk = await (this.sdkLoad ??= loadSdk());
    const link = (this.link ??= new UpstreamLink(
      sdk,
      this.options.upstream,
      this.timeoutMs,
      this.connectTimeoutMs,
      this.options.clientInfo ?? { name: 'mcp-failure-proxy', version: PROXY_PACKAGE_VERSION },
    ));
    const client = (this.upstreamClient ??= upstreamClientOf(link, this.retry));
    link.onnotification = (notification) => this.downstreams.deliver(notification);
    link.onunreadable = (inFlight) => {
      if (this.saidUnreadable) return;
      this.saidUnreadable = true;
      this.log(
        `the upstream sent a message that cannot be read while ${inFlight} requests were in flight; it names none of them, so none fails (each gets its own answer or its timeout) (said once)`,
      );
    };
    return { sdk, link, client };
  }

  /** The relay behind one downstream server, whichever SDK line the server is from. */
  private relayFor(server: DownstreamServer, ready: Ready): DownstreamRelay {
    const ledger = new Map<unknown, unknown>();
    const downstream: Downstream = this.downstreams.add(server);
    return {
      ledger,
      request: async (method, params, extra) => {
        const uri = method.startsWith('resources/') ? uriOf(params) : undefined;
        // Another connection still subscribed keeps the upstream's one subscription: this
        // connection's ends here, and the upstream is not told.
        if (method === 'resources/unsubscribe' && uri !== undefined)
          if (this.downstreams.unsubscribe(downstream, uri)) return {};
        const end = this.downstreams.begin(downstream, extra);
        try {
          const result = await this.relay(ready, method, params, extra, ledger);
          if (method === 'resources/subscribe' && uri !== undefined)
            this.downstreams.subscribe(downstream, uri);
          const taskId = createdTaskOf(result);
          if (taskId !== undefined) this.downstreams.ownTask(downstream, taskId);
          return result;
        } finally {
          end();
        }
      },
      notify: async (notification) => {
        if (LOCAL_NOTIFICATIONS.has(notification.method)) return;
        await ready.link.notify(notification);
      },
      closed: () => {
        // A URI no connection is subscribed to any more: the upstream's subscription ends too.
        for (const uri of this.downstreams.remove(downstream))
          void ready.link.request('resources/unsubscribe', { uri }).catch(() => undefined);
        ledger.clear();
      },
    };
  }

  /** One request relayed upstream: the upstream's result as it came, or the proxy's own answer. */
  private async relay(
    ready: Ready,
    method: string,
    rawParams: unknown,
    extra: RelayExtra,
    ledger: Map<unknown, unknown>,
  ): Promise<Params> {
    // Checked before anything else sees it: the retry engine and its circuits never do.
    if (nestedBeyond(rawParams, MAX_RELAYED_DEPTH))
      return unrelayable(
        this.log,
        method,
        rawParams,
        `nest deeper than ${MAX_RELAYED_DEPTH} levels`,
      );
    const proxySpan = trace.getSpanContext(context.active());
    const params = forwardParams(
      rawParams,
      proxySpan !== undefined && isSpanContextValid(proxySpan),
      this.options.trustIncomingContext !== false,
    );
    try {
      const result = await this.send(ready, method, params, extra);
      // The engine's open circuit answered: the proxy's own failure, not a relayed result.
      if (isCircuitOpenAnswer(result)) {
        logFailure(this.log, method, toolNameOf(params), result, 'not sent upstream');
        return result;
      }
      // A result no transport could write on (JSON.stringify would overflow): the upstream's fault.
      if (nestedBeyond(result, MAX_RELAYED_DEPTH))
        throw new UpstreamError({
          kind: 'malformed',
          detail: `the result nests deeper than ${MAX_RELAYED_DEPTH} levels`,
        });
      if (method === 'tools/list') rememberToolList(ready.client.adapter, result);
      ledger.set(extra.requestId, result);
      // Tell a server-side instrumentation in this process that the result is relayed, not ours.
      return markRelayed(result);
    } catch (error) {
      return this.answerFailure(ready, method, rawParams, params, error);
    }
  }

  /** Sends one request upstream, through the retry engine for `tools/call` when there is one. */
  private async send(
    ready: Ready,
    method: string,
    params: Params | undefined,
    extra: RelayExtra,
  ): Promise<Params> {
    const requestOptions = requestOptionsOf(params, extra);
    const client = ready.client;
    if (method === 'tools/call') await this.knowTools?.(client.adapter, toolNameOf(params));
    return method === 'tools/call' && client.retrying !== undefined
      ? ((await client.retrying.callTool(
          (params ?? {}) as { name: string },
          requestOptions,
        )) as Params)
      : ready.link.request(method, params, requestOptions);
  }

  /**
   * What the caller gets when relaying failed: the upstream's JSON-RPC error as it came, the
   * proxy's failure object for `tools/call` (a JSON-RPC error for any other method), or the
   * error itself when it is none of the relay's.
   */
  private answerFailure(
    ready: Ready,
    method: string,
    rawParams: unknown,
    params: Params | undefined,
    error: unknown,
  ): Params {
    if (error instanceof RelayedRpcError) throw error;
    if (error instanceof UnsendableRequest)
      return unrelayable(this.log, method, rawParams, `cannot be sent (${error.message})`);
    if (!(error instanceof UpstreamError)) throw error;
    if (method !== 'tools/call') {
      this.log(`${plain(method)}: ${INTERNAL_ERROR} (${error.message})`);
      throw Object.assign(new Error(`mcp-failure-proxy: ${error.message}`), {
        code: INTERNAL_ERROR,
      });
    }
    const tool = toolNameOf(params);
    // correlationId: the trace ID of the proxy's own span for this call (or a random one).
    const idempotent = getToolAnnotations(ready.client.adapter, tool)?.idempotentHint === true;
    return ownFailure(this.log, method, tool, upstreamFailureInit(error.problem, tool, idempotent));
  }
}

/** The `uri` of a `resources/*` request's params, when it is a string. */
function uriOf(params: unknown): string | undefined {
  const uri = isRecord(params) ? params.uri : undefined;
  return typeof uri === 'string' ? uri : undefined;
}

/** The id of the task a relayed result says its request created (`CreateTaskResult`), if any. */
function createdTaskOf(result: Params): string | undefined {
  const task = result.task;
  return isRecord(task) && typeof task.taskId === 'string' ? task.taskId : undefined;
}

/** The options of one upstream request: the caller's signal, and its progress relayed back. */
function requestOptionsOf(params: Params | undefined, extra: RelayExtra): RequestOptions {
  const token = (params?._meta as Params | undefined)?.progressToken;
  return {
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

/** Walks the upstream's tools before the first call of `tool` when it is not listed yet. */
type ToolListWalker = (client: UpstreamClient['adapter'], tool: string) => Promise<void>;

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
function toolListWalker(log: (line: string) => void): ToolListWalker {
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
