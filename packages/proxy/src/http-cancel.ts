/**
 * A session's POST streams and the requests each still waits to answer, so that a client's
 * `notifications/cancelled` for its own request ends that request's stream. The SDK's server
 * sends no response for a cancelled request (as MCP asks), and its transport closes a POST's SSE
 * stream only once every request on it is answered: without this, a cancelled request's stream
 * stayed open, and held its in-flight slot, until the client went away.
 */
import { isRecord } from '@omcp/tool-failure/wire';
import type { Closes, RequestId } from './http-admission.js';

/** What ending a stream needs of the session's transport (the SDK's, 1.x). */
export interface StreamTransport {
  send(message: unknown, options?: unknown): Promise<void>;
  /** Ends the SSE stream of a request (SDK 1.x since 1.20; absent before). */
  closeSSEStream?: (requestId: RequestId) => void;
}

/** One POST with requests: the ids it still waits to answer, and its response. */
interface OpenPost {
  pending: Set<RequestId>;
  /** One of its requests was cancelled: the SDK will not end its stream by itself. */
  cancelled: RequestId | undefined;
  res: Closes & { end(): unknown };
}

/** The request ids a client's message (or batch) cancels with `notifications/cancelled`. */
export function cancelledIdsOf(message: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of Array.isArray(message) ? message : [message]) {
    if (!isRecord(m) || m.method !== 'notifications/cancelled' || 'id' in m) continue;
    const id = isRecord(m.params) ? m.params.requestId : undefined;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

/** The open POSTs of one session, by the ids of their requests. */
export class SessionStreams {
  private readonly byId = new Map<RequestId, OpenPost>();

  /** Watches what `transport` answers, so a POST knows which of its requests are done. */
  constructor(private readonly transport: StreamTransport) {
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      const id = isRecord(message) && !('method' in message) ? message.id : undefined;
      const post = typeof id === 'string' || typeof id === 'number' ? this.byId.get(id) : undefined;
      post?.pending.delete(id as RequestId);
      await send(message, options);
      // The last answer of a POST one of whose requests was cancelled: its stream ends now.
      if (post !== undefined) this.endIfDone(post);
    };
  }

  /** A POST carrying the requests `ids`, answered on `res`, until `res` closes. */
  opened(res: OpenPost['res'], ids: RequestId[]): void {
    if (ids.length === 0) return;
    const post: OpenPost = { pending: new Set(ids), cancelled: undefined, res };
    for (const id of ids) this.byId.set(id, post);
    res.once('close', () => {
      for (const id of ids) if (this.byId.get(id) === post) this.byId.delete(id);
    });
  }

  /**
   * The client cancelled its request `id`: nothing will answer it, so its POST's stream ends
   * once the POST has no other request left to answer (its response closing frees its slots).
   * A request already answered is not cancelled.
   */
  cancelled(id: RequestId): void {
    const post = this.byId.get(id);
    if (post === undefined || !post.pending.delete(id)) return;
    post.cancelled = id;
    this.endIfDone(post);
  }

  private endIfDone(post: OpenPost): void {
    if (post.cancelled === undefined || post.pending.size > 0) return;
    if (typeof this.transport.closeSSEStream === 'function')
      this.transport.closeSSEStream(post.cancelled);
    else post.res.end();
  }
}
