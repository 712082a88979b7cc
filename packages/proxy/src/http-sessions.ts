/**
 * The MCP sessions of the proxy's Streamable HTTP endpoint: the table of those open, the ones
 * being opened (they count against `maxSessions` before they have an id), and each session's
 * open requests and idle timer. Every count here changes in this file and nowhere else.
 */
import type { Closes, SessionCounts } from './http-admission.js';
import type { ProxyHttpLimits } from './http-limits.js';

/** What the table needs of a session's transport (the SDK's Streamable HTTP server transport). */
export interface SessionTransport {
  readonly sessionId?: string | undefined;
  onclose?: (() => void) | undefined;
  close(): Promise<void>;
}

/** Where the table reports sessions opened and closed (the endpoint's metrics). */
export interface SessionEvents {
  sessionOpened(): void;
  sessionClosed(expired: boolean): void;
}

/** One open MCP session: its transport, its requests being answered and its idle timer. */
export class HttpSession<T extends SessionTransport = SessionTransport> {
  /** What the in-flight limits count of the session (changed by `InFlightLimits` only). */
  readonly counts: SessionCounts = { inFlight: 0, ids: new Set() };
  /** Requests of the session whose response is still open (POSTs and a GET stream). */
  private open = 0;
  private idle: NodeJS.Timeout | undefined;
  private expired = false;
  /** Its transport has closed: it is gone from the table and must not be kept by a timer. */
  private closed = false;

  constructor(
    readonly transport: T,
    private readonly idleMs: number,
    /** Whether the table still keeps this session (open, not closing). */
    private readonly kept: (session: HttpSession<T>) => boolean,
  ) {}

  /** Requests whose response is open now. */
  get openRequests(): number {
    return this.open;
  }

  /** Whether the session was closed for being idle. */
  get wasExpired(): boolean {
    return this.expired;
  }

  /** Keeps the session from idling until `res` closes (one request of the session). */
  holdOpen(res: Closes): void {
    this.open += 1;
    this.stopIdle();
    res.once('close', () => {
      this.open -= 1;
      this.idleIfUnused();
    });
  }

  /** Starts the idle timer when no request of the session is open (never for a closed one). */
  idleIfUnused(): void {
    if (this.open !== 0 || this.closed || !this.kept(this)) return;
    this.stopIdle();
    this.idle = setTimeout(() => {
      this.expired = true;
      void this.transport.close().catch(() => undefined);
    }, this.idleMs);
    this.idle.unref();
  }

  /** Its transport has closed: no timer keeps it any more. */
  ended(): void {
    this.closed = true;
    this.stopIdle();
  }

  private stopIdle(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
  }
}

/** The sessions of one endpoint. */
export class SessionTable<T extends SessionTransport = SessionTransport> {
  private readonly byId = new Map<string, HttpSession<T>>();
  /** Sessions being opened (admitted `initialize` requests whose session has no id yet). */
  private opening = 0;
  private closingNow = false;

  constructor(
    private readonly limits: Pick<ProxyHttpLimits, 'maxSessions' | 'sessionIdleMs'>,
    private readonly events: SessionEvents,
  ) {}

  /** Sessions open now. */
  get size(): number {
    return this.byId.size;
  }

  /** Whether the endpoint is closing: no session is opened or kept idle any more. */
  get closing(): boolean {
    return this.closingNow;
  }

  get(id: string): HttpSession<T> | undefined {
    return this.byId.get(id);
  }

  /**
   * Opens a session, or `undefined` when `maxSessions` are open or being opened. `make` builds
   * its transport, given the callback that enters the session in the table once it has an id;
   * the session counts as being opened while `setUp` runs.
   */
  async open(
    make: (initialized: (id: string) => void) => T,
    setUp: (session: HttpSession<T>) => Promise<void>,
  ): Promise<HttpSession<T> | undefined> {
    if (this.byId.size + this.opening >= this.limits.maxSessions) return undefined;
    this.opening += 1;
    try {
      // The transport names its session only once the SDK has answered the initialize.
      const entered: { session?: HttpSession<T> } = {};
      const transport = make((id) => {
        if (entered.session !== undefined) this.enter(id, entered.session);
      });
      const session = new HttpSession(transport, this.limits.sessionIdleMs, (s) => this.keeps(s));
      entered.session = session;
      transport.onclose = () => this.leave(session);
      await setUp(session);
      return session;
    } finally {
      this.opening -= 1;
    }
  }

  /** Closes every session; from now on none is opened. */
  async close(): Promise<void> {
    this.closingNow = true;
    await Promise.all(
      [...this.byId.values()].map((s) => s.transport.close().catch(() => undefined)),
    );
    this.byId.clear();
  }

  private keeps(session: HttpSession<T>): boolean {
    const id = session.transport.sessionId;
    return !this.closingNow && id !== undefined && this.byId.get(id) === session;
  }

  private enter(id: string, session: HttpSession<T>): void {
    this.byId.set(id, session);
    this.events.sessionOpened();
  }

  private leave(session: HttpSession<T>): void {
    session.ended();
    const id = session.transport.sessionId;
    if (id !== undefined && this.byId.get(id) === session) {
      this.byId.delete(id);
      this.events.sessionClosed(session.wasExpired);
    }
  }
}
