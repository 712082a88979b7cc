import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { transportProblemOf, type UpstreamProblem } from './forward.js';
import type { Sdk } from './sdk.js';
import type { UpstreamTransportFactory } from './types.js';
import {
  AbortLink,
  CONNECTION_CLOSED,
  INVALID_PARAMS,
  REQUEST_TIMEOUT,
  isRecord,
  firstLineOf,
} from '@omcp/tool-failure/wire';
import { isTransientNetworkCode } from '@omcp/tool-failure';

/** Thrown by `UpstreamLink` when the upstream gave no usable answer. */
export class UpstreamError extends Error {
  constructor(readonly problem: UpstreamProblem) {
    super(describeProblem(problem));
    this.name = 'UpstreamError';
  }
}

/** A JSON-RPC error the upstream itself answered, to be relayed to the caller as it came. */
export class RelayedRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'RelayedRpcError';
  }
}

/**
 * The proxy could not write the caller's request (nested too deep, too large for a string): the
 * caller's input, which never reached the upstream. Its code classifies it as invalid params.
 */
export class UnsendableRequest extends Error {
  readonly code = INVALID_PARAMS;
  constructor(message: string) {
    super(message);
    this.name = 'UnsendableRequest';
  }
}

function describeProblem(problem: UpstreamProblem): string {
  return problem.kind === 'timeout'
    ? `upstream did not answer within ${problem.timeoutMs} ms`
    : `upstream ${problem.kind}: ${problem.detail}`;
}

const MALFORMED = Symbol('malformed upstream message');
/** The SDK's own codes for a closed connection and a request timeout (not the upstream's). */

const failureMessageOf = firstLineOf;

function isParseError(error: unknown): boolean {
  return error instanceof SyntaxError || (error instanceof Error && /zod/i.test(error.name));
}

/** A message the client could not read or place: unparsable, or no JSON-RPC shape it knows. */
function isGarbage(error: unknown): boolean {
  return (
    isParseError(error) ||
    (error instanceof Error && error.message.startsWith('Unknown message type'))
  );
}

/** Why an upstream result is not relayed: not an object, or a `_meta` that is not one. */
class NotAResult extends SyntaxError {}

function asResult(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw new NotAResult('the result is not an object');
  if (value._meta !== undefined && !isRecord(value._meta))
    throw new NotAResult("the result's _meta is not an object");
  return value;
}

/**
 * The "schema" the upstream client reads results with: it checks what the SDK's `ResultSchema`
 * checks (an object, with an object `_meta` if any) and returns the parsed message's own object,
 * not a copy, so a relayed result keeps the upstream's keys in the upstream's order. The SDK
 * calls `safeParse` (1.2x) or `parse` (older 1.x) on a schema without zod 4's `_zod` marker.
 */
const RAW_RESULT = Object.freeze({
  parse: asResult,
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: Error } {
    try {
      return { success: true, data: asResult(value) };
    } catch (error) {
      return { success: false, error: error as Error };
    }
  },
});

/** What one upstream request needs besides its method and params. */
export interface UpstreamRequestOptions {
  signal?: AbortSignal;
  onprogress?: (progress: Record<string, unknown>) => void;
}

/**
 * The proxy's one connection to the upstream server: opened on first use, within a bounded
 * time, and opened again after it is lost. Every request is bounded by `timeoutMs`; a message
 * the upstream cannot have meant (garbage on the wire) fails the one request in flight at once,
 * and none when several are (it names none of them).
 */
export class UpstreamLink {
  private client: Client | undefined;
  private opening: Promise<Client> | undefined;
  private closes = 0;
  private closed = false;
  private readonly inflight = new Set<AbortLink>();
  /** Called when an unreadable upstream message failed no request (it could not be tied to one). */
  onunreadable: ((inFlight: number) => void) | undefined;
  /** Called with every notification the upstream sends. */
  onnotification:
    ((notification: { method: string; params?: Record<string, unknown> }) => void) | undefined;

  constructor(
    private readonly sdk: Sdk,
    private readonly factory: UpstreamTransportFactory,
    private readonly timeoutMs: number,
    private readonly connectTimeoutMs: number,
    private readonly clientInfo: { name: string; version: string },
  ) {}

  /** The connected client, opening the connection if needed. Rejects with `UpstreamError`. */
  get(): Promise<Client> {
    if (this.closed)
      return Promise.reject(new UpstreamError({ kind: 'unavailable', detail: 'proxy closed' }));
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<Client> {
    let transport: Transport | undefined;
    const client = new this.sdk.Client(this.clientInfo, { capabilities: {} });
    let timer: NodeJS.Timeout | undefined;
    try {
      transport = await this.factory();
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer to initialize within ${this.connectTimeoutMs} ms`)),
          this.connectTimeoutMs,
        );
      });
      await Promise.race([client.connect(transport, { timeout: this.connectTimeoutMs }), timeout]);
    } catch (error) {
      // Not awaited: closing a child process may take the SDK's grace period (2 s) more, and the
      // caller was promised an answer within connectTimeoutMs.
      void transport?.close().catch(() => undefined);
      throw new UpstreamError({ kind: 'unavailable', detail: failureMessageOf(error) });
    } finally {
      clearTimeout(timer);
    }
    client.onclose = () => {
      this.closes += 1;
      if (this.client === client) this.client = undefined;
    };
    client.onerror = (error) => {
      if (!isGarbage(error)) return;
      // An unreadable message names no request. With one request in flight it can only be that
      // request's exchange, which fails; with several it cannot be tied to any, so it fails none
      // (each gets its own answer or its timeout), not every caller's call at once.
      const [only, ...others] = this.inflight;
      if (only !== undefined && others.length === 0) only.abort(MALFORMED);
      else this.onunreadable?.(this.inflight.size);
    };
    client.fallbackNotificationHandler = async (notification) => {
      this.onnotification?.(notification as { method: string; params?: Record<string, unknown> });
    };
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new UpstreamError({ kind: 'unavailable', detail: 'proxy closed' });
    }
    this.client = client;
    return client;
  }

  /**
   * Sends one request upstream and resolves to its result as the upstream sent it (checked
   * only to be a JSON-RPC result object). Rejects with `UpstreamError` when there is no usable
   * answer, `RelayedRpcError` when the upstream answered with a JSON-RPC error, or the
   * caller's abort reason when the caller cancelled.
   */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const client = await this.get();
    // The caller's cancellation and this link's own abort (garbage on the wire), in one signal
    // that is let go of when the request ends.
    const own = new AbortLink([options.signal]);
    const closesBefore = this.closes;
    this.inflight.add(own);
    try {
      const request = params === undefined ? { method } : { method, params };
      return (await client.request(request, RAW_RESULT as never, {
        signal: own.signal,
        timeout: this.timeoutMs,
        maxTotalTimeout: this.timeoutMs,
        ...(options.onprogress === undefined
          ? {}
          : { onprogress: options.onprogress as (p: unknown) => void }),
      })) as Record<string, unknown>;
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      throw this.explain(error, own.signal, closesBefore);
    } finally {
      this.inflight.delete(own);
      own.dispose();
    }
  }

  private explain(error: unknown, own: AbortSignal, closesBefore: number): Error {
    if (own.aborted && own.reason === MALFORMED)
      return new UpstreamError({ kind: 'malformed', detail: 'unparsable message on the wire' });
    if (error instanceof this.sdk.McpError) {
      if (error.code === REQUEST_TIMEOUT && /timed out/i.test(error.message))
        return new UpstreamError({ kind: 'timeout', timeoutMs: this.timeoutMs });
      if (error.code === CONNECTION_CLOSED && this.closes > closesBefore)
        return new UpstreamError({ kind: 'lost', detail: 'connection closed' });
      const prefix = `MCP error ${error.code}: `;
      const message = error.message.startsWith(prefix)
        ? error.message.slice(prefix.length)
        : error.message;
      return new RelayedRpcError(error.code, message, error.data);
    }
    if (isParseError(error))
      return new UpstreamError({ kind: 'malformed', detail: failureMessageOf(error) });
    if (error instanceof RangeError) return new UnsendableRequest(failureMessageOf(error));
    const problem = transportProblemOf(error, isTransientNetworkCode);
    if (problem !== undefined) {
      // Nothing answers where the upstream was: the next request opens a new connection.
      if (problem.kind === 'unavailable') this.drop();
      return new UpstreamError(problem);
    }
    if (this.closes > closesBefore || this.client === undefined)
      return new UpstreamError({ kind: 'lost', detail: failureMessageOf(error) });
    return new UpstreamError({ kind: 'malformed', detail: failureMessageOf(error) });
  }

  /** Forgets the connection (closing it): the next request opens a new one. */
  private drop(): void {
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
  }

  /** Sends a notification upstream if connected; notifications are not worth a reconnect. */
  async notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    await this.client?.notification(notification).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.opening?.catch(() => undefined));
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }
}
