/**
 * The proxy's downstream connections, the requests each has in flight upstream, what each owns
 * (its resource subscriptions and the tasks its requests created), and where an upstream
 * notification goes. One upstream connection serves every downstream caller, and the SDK's
 * client does not say which request a notification came with (a stdio upstream cannot say; a
 * Streamable HTTP client transport does not tell). A notification that names a resource, a task
 * or a request goes to that thing's owners only, or nowhere; any other that may carry one
 * caller's data is attributed by what is in flight, and never sent where another caller could
 * read it.
 */
import { firstLine, isRecord } from '@omcp/tool-failure/wire';
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

/**
 * What an upstream notification names that has an owner: a resource (its subscribers), a task
 * (the connection whose request created it), or a request of the upstream connection (a
 * `requestId`, `progressToken` or `elicitationId` the proxy's client did not take for one of its
 * own requests, which no caller can own); `undefined` when it names none of these.
 */
export type Named =
  | { kind: 'resource'; uri: string }
  | { kind: 'task'; taskId: string }
  | { kind: 'request'; key: string };

/** The `_meta` key that ties a message to a task (MCP 2025-11-25 tasks). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** Params that name a request of the upstream connection. */
const REQUEST_KEYS = ['requestId', 'progressToken', 'elicitationId'];

/** What `notification` names that has an owner (see `Named`), by its params. */
export function namedIn(notification: Notification): Named | undefined {
  const params = notification.params;
  if (!isRecord(params)) return undefined;
  const related = isRecord(params._meta) ? params._meta[RELATED_TASK] : undefined;
  if (related !== undefined)
    return { kind: 'task', taskId: isRecord(related) ? String(related.taskId) : '' };
  if ('taskId' in params) return { kind: 'task', taskId: String(params.taskId) };
  if ('uri' in params) return { kind: 'resource', uri: String(params.uri) };
  const key = REQUEST_KEYS.find((k) => k in params);
  return key === undefined ? undefined : { kind: 'request', key };
}

/** The most tasks one connection is remembered to own (the oldest is forgotten beyond it). */
const MAX_TASKS_PER_CONNECTION = 1000;

/** The downstream connections of one proxy, and the delivery of upstream notifications to them. */
export class Downstreams {
  private readonly connections = new Set<Downstream>();
  /** Resource URI to the connections subscribed to it. */
  private readonly subscribers = new Map<string, Set<Downstream>>();
  /** The URIs each connection is subscribed to. */
  private readonly subscriptions = new Map<Downstream, Set<string>>();
  /** Task id to the connection whose request created it; each connection's task ids. */
  private readonly taskOwner = new Map<string, Downstream>();
  private readonly tasks = new Map<Downstream, Set<string>>();
  private saidNowhere = false;
  private saidUnowned = false;

  /** `say` reports, once, that a notification could not be attributed and was not relayed. */
  constructor(private readonly say: (line: string) => void) {}

  add(server: DownstreamServer): Downstream {
    const downstream: Downstream = { server, active: new Set() };
    this.connections.add(downstream);
    return downstream;
  }

  /**
   * Forgets `downstream`, its subscriptions and its tasks; returns the URIs that no connection is
   * subscribed to any more (the upstream's subscription to each may end).
   */
  remove(downstream: Downstream): string[] {
    this.connections.delete(downstream);
    downstream.active.clear();
    for (const taskId of this.tasks.get(downstream) ?? []) this.taskOwner.delete(taskId);
    this.tasks.delete(downstream);
    const left: string[] = [];
    for (const uri of [...(this.subscriptions.get(downstream) ?? [])])
      if (!this.unsubscribe(downstream, uri)) left.push(uri);
    return left;
  }

  servers(): DownstreamServer[] {
    return [...this.connections].map((d) => d.server);
  }

  /** Marks a request of `downstream` in flight upstream; the function returned ends it. */
  begin(downstream: Downstream, request: RelatedSender): () => void {
    downstream.active.add(request);
    return () => downstream.active.delete(request);
  }

  /** `downstream` is subscribed to `uri` (the upstream accepted its `resources/subscribe`). */
  subscribe(downstream: Downstream, uri: string): void {
    if (!this.connections.has(downstream)) return;
    let of = this.subscribers.get(uri);
    if (of === undefined) this.subscribers.set(uri, (of = new Set()));
    of.add(downstream);
    let uris = this.subscriptions.get(downstream);
    if (uris === undefined) this.subscriptions.set(downstream, (uris = new Set()));
    uris.add(uri);
  }

  /** Ends `downstream`'s subscription to `uri`; whether another connection is still subscribed. */
  unsubscribe(downstream: Downstream, uri: string): boolean {
    this.subscriptions.get(downstream)?.delete(uri);
    const of = this.subscribers.get(uri);
    of?.delete(downstream);
    if (of !== undefined && of.size > 0) return true;
    this.subscribers.delete(uri);
    return false;
  }

  /** A request of `downstream` created task `taskId`: its notifications go to `downstream`. */
  ownTask(downstream: Downstream, taskId: string): void {
    if (!this.connections.has(downstream) || this.taskOwner.has(taskId)) return;
    let ids = this.tasks.get(downstream);
    if (ids === undefined) this.tasks.set(downstream, (ids = new Set()));
    if (ids.size >= MAX_TASKS_PER_CONNECTION) {
      const oldest = first(ids);
      if (oldest !== undefined) {
        ids.delete(oldest);
        this.taskOwner.delete(oldest);
      }
    }
    ids.add(taskId);
    this.taskOwner.set(taskId, downstream);
  }

  /** The connections that own what `named` names (none for a request of the upstream's own). */
  private ownersOf(named: Named): Downstream[] {
    if (named.kind === 'resource') return [...(this.subscribers.get(named.uri) ?? [])];
    if (named.kind === 'task') {
      const owner = this.taskOwner.get(named.taskId);
      return owner === undefined ? [] : [owner];
    }
    return [];
  }

  /**
   * Delivers an upstream notification: server-wide ones to every connection; one that names a
   * resource, task or request to its owners only (a resource's subscribers, a task's creator),
   * or to no one; any other where `routeOf` says. Failures to deliver are ignored.
   */
  deliver(notification: Notification): void {
    const named = SERVER_WIDE.has(notification.method) ? undefined : namedIn(notification);
    if (named !== undefined) return this.deliverToOwners(notification, named);
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

  private deliverToOwners(notification: Notification, named: Named): void {
    const owners = this.ownersOf(named);
    for (const d of owners) void d.server.notification(notification).catch(() => undefined);
    if (owners.length > 0 || this.saidUnowned) return;
    this.saidUnowned = true;
    const what =
      named.kind === 'resource'
        ? 'a resource no downstream connection is subscribed to'
        : named.kind === 'task'
          ? 'a task no downstream connection created'
          : `a request of the upstream connection (${named.key}) that no caller owns`;
    this.say(
      `an upstream ${oneLine(notification.method)} was not relayed: it names ${what}; such notifications go to their owners only (said once)`,
    );
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
