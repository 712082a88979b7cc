/**
 * The proxy's downstream server for the 2026-07-28 revision: an SDK 2.x low-level `Server` per
 * request (the SDK's `createMcpHandler` makes one for each), relaying through the same relay
 * as the SDK 1.x server of the other modes, to the same upstream connection.
 */
import type { DownstreamServer } from './downstreams.js';
import type { DownstreamRelay, RelayExtra, UpstreamIdentity } from './relay-types.js';
import type { ModernSdk } from './sdk.js';
import { relayResultsVerbatim, type ResultMerge } from './verbatim.js';
import { markRelaying } from '@omcp/instrumentation-mcp/relay';
import { isRecord } from '@omcp/tool-failure/wire';

/** A 2.x `Server` as the SDK's handler takes it from the factory. */
export type ModernServer = InstanceType<ModernSdk['Server']>;

/**
 * Top-level result fields the 2026-07-28 revision requires (`resultType`; `ttlMs` and
 * `cacheScope` on list results) that an upstream speaking an earlier revision does not send.
 */
const REVISION_FIELDS = ['resultType', 'ttlMs', 'cacheScope'] as const;

/**
 * The relayed result on the 2026-07-28 wire: the upstream's object, `_meta` and every key as it
 * sent them, plus the revision's required fields the SDK's encoder filled in where the upstream
 * has none. The encoder's `serverInfo` stamp in `_meta` is not kept: `_meta` stays the
 * upstream's.
 */
export const keepRevisionFields: ResultMerge = (relayed, encoded) => {
  if (!isRecord(relayed) || !isRecord(encoded)) return relayed;
  const added: Record<string, unknown> = {};
  for (const key of REVISION_FIELDS)
    if (!(key in relayed) && key in encoded) added[key] = encoded[key];
  return Object.keys(added).length === 0 ? relayed : { ...relayed, ...added };
};

interface ModernContext {
  mcpReq: {
    id: string | number;
    signal: AbortSignal;
    notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  };
}

/**
 * A 2.x `Server` announcing the upstream's identity, whose every request but the SDK's own
 * (`server/discover`) goes through the fallback handler to the relay, as the 1.x server's do.
 */
export function modernServer(
  sdk: ModernSdk,
  identity: UpstreamIdentity,
  relayFor: (server: DownstreamServer) => DownstreamRelay,
): ModernServer {
  const server = new sdk.Server(identity.serverInfo, {
    capabilities: identity.capabilities as ConstructorParameters<ModernSdk['Server']>[1] extends
      { capabilities?: infer C } | undefined
      ? C
      : never,
    ...(identity.instructions === undefined ? {} : { instructions: identity.instructions }),
  });
  // Its `server/discover` answer carries the upstream's capabilities as they came: a server-side
  // instrumentation in this process adds no declaration of its own (as for the 1.x server).
  markRelaying(server);
  // The Server answers logging/setLevel itself when logging is declared; relay it instead.
  server.removeRequestHandler('logging/setLevel');
  const relaying = relayFor(server as unknown as DownstreamServer);
  server.fallbackRequestHandler = async (request, ctx) => {
    const { mcpReq } = ctx as unknown as ModernContext;
    const extra: RelayExtra = {
      signal: mcpReq.signal,
      requestId: mcpReq.id,
      sendNotification: (notification) => mcpReq.notify(notification),
    };
    return (await relaying.request(request.method, request.params, extra)) as Awaited<
      ReturnType<NonNullable<ModernServer['fallbackRequestHandler']>>
    >;
  };
  server.fallbackNotificationHandler = async (notification) =>
    relaying.notify(notification as { method: string; params?: Record<string, unknown> });
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    relayResultsVerbatim(transport, relaying.ledger, keepRevisionFields);
    return connect(transport);
  };
  server.onclose = () => relaying.closed();
  return server;
}
