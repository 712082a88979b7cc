/**
 * The proxy's downstream connections and the requests each has in flight upstream, and where an
 * upstream notification goes. One upstream connection serves every downstream caller, and the
 * SDK's client does not say which request a notification came with (a stdio upstream cannot
 * say; a Streamable HTTP client transport does not tell), so a notification that may carry one
 * caller's data is attributed by what is in flight, and never sent where another caller could
 * read it.
 */
import { firstLine } from '@omcp/tool-failure/wire';
type Params = Record<string, unknown>;
type Notification = { method: string; params?: Params };

/** What the downstream `Server` gives a request handler: a notification related to the request. */
export interface RelatedSender {
  sendNotification(notification: Notification): Promise<void>;
}

/** Upstream notifications about the server as a whole: every downstream connection gets them. */
const SERVER_WIDE = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);

/** What the proxy needs of a downstream connection's server (SDK 1.x, or 2.x for 2026-07-28). */
export interface DownstreamServer {
  notification(notification: Notification): Promise<void>;
  close(): Promise<void>;
}

/** One downstream connection: its server and its requests relayed upstream now. */
export interface Downstream {
  readonly server: DownstreamServer;
  readonly active: Set<RelatedSender>;
}

/** Where one upstream notification goes. */
export type Route =
  | { to: 'all' }
  | { to: 'request'; downstream: Downstream; request: RelatedSender }
  | { to: 'connection'; downstream: Downstream }
  | { to: 'nowhere'; busy: number };

/**
 * The route of a notification `method`: server-wide ones to every connection; any other to the
 * one connection that can be its owner (the only one with requests in flight, or the only one
 * there is), on its request's stream when it has exactly one request in flight; with several
 * possible owners, nowhere.
 */
export function routeOf(method: string, downstreams: ReadonlySet<Downstream>): Route {
  if (SERVER_WIDE.has(method)) return { to: 'all' };
  const busy = [...downstreams].filter((d) => d.active.size > 0);
  const owner =
    busy.length === 1 ? busy[0] : downstreams.size === 1 ? first(downstreams) : undefined;
  if (owner === undefined) return { to: 'nowhere', busy: busy.length };
  if (owner.active.size === 1) {
    const request = first(owner.active);
    if (request !== undefined) return { to: 'request', downstream: owner, request };
  }
  return { to: 'connection', downstream: owner };
}

function first<T>(set: ReadonlySet<T>): T | undefined {
  return set.values().next().value;
}

/** The downstream connections of one proxy, and the delivery of upstream notifications to them. */
export class Downstreams {
  private readonly connections = new Set<Downstream>();
  private saidNowhere = false;

  /** `say` reports, once, that a notification could not be attributed and was not relayed. */
  constructor(private readonly say: (line: string) => void) {}

  add(server: DownstreamServer): Downstream {
    const downstream: Downstream = { server, active: new Set() };
    this.connections.add(downstream);
    return downstream;
  }

  remove(downstream: Downstream): void {
    this.connections.delete(downstream);
    downstream.active.clear();
  }

  servers(): DownstreamServer[] {
    return [...this.connections].map((d) => d.server);
  }

  /** Marks a request of `downstream` in flight upstream; the function returned ends it. */
  begin(downstream: Downstream, request: RelatedSender): () => void {
    downstream.active.add(request);
    return () => downstream.active.delete(request);
  }

  /** Delivers an upstream notification where `routeOf` says; failures to deliver are ignored. */
  deliver(notification: Notification): void {
    const route = routeOf(notification.method, this.connections);
    switch (route.to) {
      case 'all':
        for (const d of this.connections)
          void d.server.notification(notification).catch(() => undefined);
        return;
      case 'request':
        void route.request.sendNotification(notification).catch(() => undefined);
        return;
      case 'connection':
        void route.downstream.server.notification(notification).catch(() => undefined);
        return;
      case 'nowhere':
        if (this.saidNowhere) return;
        this.saidNowhere = true;
        this.say(
          `an upstream ${oneLine(notification.method)} was not relayed: ${this.connections.size} downstream connections, ${route.busy} with requests in flight, and the upstream connection does not say which request it belongs to; such notifications are dropped rather than sent to another caller (said once)`,
        );
    }
  }
}

/** Text from the wire as part of one log line: its first line, printable ASCII, at most 300 characters. */
export function plain(text: string): string {
  const first = firstLine(text);
  return first.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
}

/** A name from the wire, safe for one log line. */
export function oneLine(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}
