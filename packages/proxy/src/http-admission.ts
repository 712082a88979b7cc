/**
 * The in-flight limits of the proxy's Streamable HTTP endpoint, counted in JSON-RPC requests: a
 * POST holds one slot while its body is read, then as many as it carries requests (a batch of 20
 * holds 20). A POST is admitted or refused whole. Every counter changes here and nowhere else.
 */
import { isRecord } from '@omcp/tool-failure/wire';
import { refusalOfMessages, type ProxyHttpLimits, type RefusalReason } from './http-limits.js';

/** A JSON-RPC request id (`null` ids are not requests the SDK answers by id). */
export type RequestId = string | number;

/** What a session counts: its requests being answered and their ids. */
export interface SessionCounts {
  inFlight: number;
  /** Ids of the session's requests in flight: a second request with one of them is refused. */
  ids: Set<RequestId>;
}

/** What one POST holds until its response closes. */
export interface Hold {
  weight: number;
  ids: RequestId[];
  session: SessionCounts | undefined;
  released: boolean;
}

/** What a hold is kept for: a response, given back when it closes. */
export interface Closes {
  once(event: 'close', listener: () => void): unknown;
}

/** A POST refused whole once its body was read: why, and the body that answers it. */
export interface MessageRefusal {
  reason: RefusalReason;
  body: string;
}

/** The ids of the requests in a JSON-RPC message or batch (notifications and responses have none). */
export function requestIdsOf(message: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of Array.isArray(message) ? message : [message])
    if (
      isRecord(m) &&
      typeof m.method === 'string' &&
      (typeof m.id === 'string' || typeof m.id === 'number')
    )
      ids.push(m.id);
  return ids;
}

/** The endpoint's count of requests in flight, and each session's. */
export class InFlightLimits {
  private count = 0;

  constructor(private readonly limits: Readonly<ProxyHttpLimits>) {}

  /** Whether a new POST must be refused before its body is read (every slot taken). */
  full(session: SessionCounts | undefined): boolean {
    return (
      this.count >= this.limits.maxInFlight ||
      (session !== undefined && session.inFlight >= this.limits.maxInFlightPerSession)
    );
  }

  /** One slot for a POST whose body is being read. */
  hold(session: SessionCounts | undefined): Hold {
    const hold: Hold = { weight: 0, ids: [], session, released: false };
    this.settle(hold, 1, []);
    return hold;
  }

  /**
   * Admits the requests of `message` under `hold` (the POST grows to one slot per request, and
   * their ids are taken in the session), or says why the whole POST is refused: more requests
   * than a limit allows at all (`batch_too_large`), than the slots free now (`in_flight_limit`),
   * or an id repeated in the POST or already in flight in the session (`duplicate_id`).
   */
  admit(hold: Hold, ids: readonly RequestId[]): RefusalReason | undefined {
    const weight = Math.max(1, ids.length);
    const session = hold.session;
    if (
      weight > this.limits.maxInFlight ||
      (session !== undefined && weight > this.limits.maxInFlightPerSession)
    )
      return 'batch_too_large';
    const more = weight - hold.weight;
    if (
      this.count + more > this.limits.maxInFlight ||
      (session !== undefined && session.inFlight + more > this.limits.maxInFlightPerSession)
    )
      return 'in_flight_limit';
    if (new Set(ids).size < ids.length || ids.some((id) => session?.ids.has(id) === true))
      return 'duplicate_id';
    this.settle(hold, weight, ids);
    return undefined;
  }

  /** One slot for a POST whose body is being read, given back when `res` closes. */
  holdUntilClosed(res: Closes, session: SessionCounts | undefined): Hold {
    const hold = this.hold(session);
    res.once('close', () => this.release(hold));
    return hold;
  }

  /**
   * Admits the requests of a POST's parsed body (a batch counts each one) under `hold`, or
   * refuses the whole POST with one JSON-RPC error per request, each with its id.
   */
  admitMessage(hold: Hold, message: unknown): MessageRefusal | undefined {
    const ids = requestIdsOf(message);
    const reason = this.admit(hold, ids);
    if (reason === undefined) return undefined;
    return { reason, body: refusalOfMessages(reason, ids, Array.isArray(message)) };
  }

  /** Gives back what `hold` took (once; later calls do nothing). */
  release(hold: Hold): void {
    if (hold.released) return;
    hold.released = true;
    this.settle(hold, 0, []);
  }

  /** The one place the counts change: `hold` weighs `weight` slots and holds `ids` from now on. */
  private settle(hold: Hold, weight: number, ids: readonly RequestId[]): void {
    const more = weight - hold.weight;
    this.count += more;
    const session = hold.session;
    if (session !== undefined) {
      session.inFlight += more;
      for (const id of hold.ids) session.ids.delete(id);
      for (const id of ids) session.ids.add(id);
    }
    hold.weight = weight;
    hold.ids = [...ids];
  }
}
