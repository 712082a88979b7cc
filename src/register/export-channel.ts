import type { Agent, ClientRequest } from 'node:http';

/** OTLP/HTTP retries (the SDK's schedule): at most 5, from 1 s growing 1.5 times, jittered, up to 5 s. */
export const MAX_RETRIES = 5;
const INITIAL_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 5_000;
const BACKOFF_MULTIPLIER = 1.5;
const JITTER = 0.2;

/**
 * How long to wait before retry number `retry` (0-based): the collector's `Retry-After` when it
 * gave one (`retryAfterMs`, never below 0), else the exponential backoff with ±20 % jitter,
 * capped at 5 s. `random` is in [0, 1).
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  random: number,
): number {
  if (retryAfterMs !== undefined) return Math.max(retryAfterMs, 0);
  const backoff = INITIAL_BACKOFF_MS * BACKOFF_MULTIPLIER ** retry;
  return Math.max(Math.min(backoff * (1 + (random * 2 - 1) * JITTER), MAX_BACKOFF_MS), 0);
}

/** What an OTLP exporter transport answers (`@opentelemetry/otlp-exporter-base`'s ExportResponse). */
interface ExportResponse {
  status: 'success' | 'failure' | 'retryable';
  error?: Error & { code?: unknown };
  retryInMillis?: number;
}

/** An OTLP exporter transport: the SDK's HTTP transport, under its retrying transport. */
interface Transport {
  send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse>;
  shutdown(): void;
}

/**
 * The parts of an OTLP/HTTP exporter of `@opentelemetry/otlp-exporter-base` (0.2xx and 0.3xx)
 * that the channel replaces: the retrying transport around the HTTP transport, and the HTTP
 * transport's agent factory.
 */
interface ExporterInternals {
  _delegate: {
    _transport: Transport & {
      _transport: Transport & {
        _parameters: { agentFactory: (protocol: string) => Agent | Promise<Agent> };
      };
    };
  };
}

function internalsOf(exporter: object): ExporterInternals | undefined {
  const delegate = (exporter as Partial<ExporterInternals>)._delegate;
  const retrying = delegate?._transport;
  const http = retrying?._transport;
  return typeof retrying?.send === 'function' &&
    typeof http?.send === 'function' &&
    typeof http._parameters?.agentFactory === 'function'
    ? (exporter as ExporterInternals)
    : undefined;
}

/** The callback an exporter's `export` answers through (`ExportResult`; 0 is success). */
type Done = (result: { code: number; error?: Error }) => void;

/** An exporter as the batch processors and the metric reader use it. */
export interface ChannelExporter<T> {
  export(items: T, done: Done): void;
  forceFlush?(): Promise<void>;
  shutdown(): Promise<void>;
}

/** One export the channel holds: what it carries, and its current request on the wire. */
interface Export<T> {
  items: T;
  request?: ClientRequest;
  answered: boolean;
}

/** Who follows what the channel holds (the exit ledger): taken in, and done with. */
export interface ChannelWatcher<T> {
  accepted(items: T): void;
  settled(items: T): void;
}

const FAILED = 1;

/** What the exit reads of a channel, whatever it carries. */
export interface ChannelState {
  readonly bounded: boolean;
  readonly lost: number;
  readonly unanswered: boolean;
  readonly reason: string | undefined;
  readonly pending: number;
  stop(): void;
}

/**
 * One signal's way to the collector, around the SDK's own OTLP/HTTP exporter (its serializer,
 * headers, compression and agent options stay):
 * - the processor's export is answered as soon as the channel takes it: the processors' own
 *   export timers (30 s for spans, referenced) then never wait on the collector, so they never
 *   hold the process; the exporter's `forceFlush` and `shutdown` wait for the wire;
 * - one export on the wire at a time; later ones wait in a queue of `capacity` exports, and an
 *   export that finds the queue full is dropped and counted;
 * - retries as OTLP says (429, 502, 503, 504 and network errors; `Retry-After` honoured; at most
 *   {@link MAX_RETRIES}, within the export timeout), with sleeps that never hold the process;
 * - sockets that never hold the process either: the application's work decides when it ends,
 *   and the exit handlers keep it alive for a bounded flush;
 * - once {@link stop} is called, no retry and no wait: each export gets one attempt;
 * - what was not delivered is counted, with the last reason.
 */
export class ExportChannel<T> implements ChannelState {
  /** Items the collector never confirmed (dropped after their last attempt, or at a full queue). */
  lost = 0;
  /** Why the last attempt failed, in words (`refused the connection`, `answered HTTP 503`...). */
  reason: string | undefined;
  /** Whether the collector refused the connection at the last attempt (nothing listens). */
  refused = false;
  /** Whether the SDK's exporter had the parts the channel needs; else it runs as the SDK built it. */
  readonly bounded: boolean;
  readonly exporter: ChannelExporter<T>;
  private current: Export<T> | undefined;
  private readonly queue: Array<Export<T>> = [];
  private stopping = false;
  private readonly sleeps = new Set<() => void>();
  private idle: Array<() => void> = [];

  constructor(
    private readonly inner: ChannelExporter<T>,
    /** How many items an export carries (spans, log records, metric points). */
    private readonly count: (items: T) => number,
    private readonly capacity: number,
    private readonly watcher?: ChannelWatcher<T>,
    private readonly random: () => number = Math.random,
  ) {
    const internals = internalsOf(inner);
    this.bounded = internals !== undefined;
    if (internals !== undefined) this.takeOver(internals);
    this.exporter = this.wrap(inner);
  }

  /** No more retries or waits: every export still to make gets one attempt. */
  stop(): void {
    this.stopping = true;
    for (const wake of [...this.sleeps]) wake();
  }

  /** Whether an export is on the wire with no answer yet. */
  get unanswered(): boolean {
    return this.current !== undefined && !this.current.answered;
  }

  /** Items held by the channel: in the export on the wire and in the queue. */
  get pending(): number {
    return (
      (this.current === undefined ? 0 : this.count(this.current.items)) +
      this.queue.reduce((n, e) => n + this.count(e.items), 0)
    );
  }

  /**
   * The items of the export whose request has been handed to the operating system in full and
   * has no answer yet: the collector will get it even if this process ends now, so sending it
   * again would deliver it twice.
   */
  handedOver(): T | undefined {
    const current = this.current;
    return current !== undefined && !current.answered && current.request?.writableFinished === true
      ? current.items
      : undefined;
  }

  private wrap(inner: ChannelExporter<T>): ChannelExporter<T> {
    const wrapped = Object.create(inner as object) as ChannelExporter<T>;
    wrapped.export = (items, done) => {
      if (this.current !== undefined && this.queue.length >= this.capacity) {
        this.lost += this.count(items);
        this.reason ??= 'was still busy with earlier exports';
        done({ code: FAILED, error: new Error('the exports waiting for the collector are full') });
        return;
      }
      const job: Export<T> = { items, answered: false };
      this.watcher?.accepted(items);
      if (this.current === undefined) this.start(job);
      else this.queue.push(job);
      done({ code: 0 });
    };
    wrapped.forceFlush = async () => {
      await this.drained();
      await inner.forceFlush?.();
    };
    wrapped.shutdown = async () => {
      await this.drained();
      await inner.shutdown();
    };
    return wrapped;
  }

  private start(job: Export<T>): void {
    this.current = job;
    this.inner.export(job.items, (result) => {
      if (result.code !== 0) this.lost += this.count(job.items);
      this.watcher?.settled(job.items);
      this.current = undefined;
      const next = this.queue.shift();
      if (next !== undefined) this.start(next);
      else for (const resolve of this.idle.splice(0)) resolve();
    });
  }

  private drained(): Promise<void> {
    return this.current === undefined
      ? Promise.resolve()
      : new Promise((resolve) => this.idle.push(resolve));
  }

  private takeOver(internals: ExporterInternals): void {
    const delegate = internals._delegate;
    const http = delegate._transport._transport;
    const agentFactory = http._parameters.agentFactory;
    http._parameters.agentFactory = async (protocol) => this.watch(await agentFactory(protocol));
    delegate._transport = {
      _transport: http,
      send: (data, timeoutMillis) => this.send(http, data, timeoutMillis),
      shutdown: () => http.shutdown(),
    };
  }

  /** The agent, with each request it carries tracked and its socket unreferenced. */
  private watch(agent: Agent): Agent {
    const target = agent as Agent & { addRequest(req: ClientRequest, options: unknown): void };
    const addRequest = target.addRequest.bind(agent);
    target.addRequest = (req, options) => {
      const job = this.current;
      if (job !== undefined) {
        job.request = req;
        job.answered = false;
        req.once('response', (res) => {
          job.answered = true;
          if ((res.statusCode ?? 0) >= 300) this.failed(`answered HTTP ${res.statusCode}`);
        });
      }
      req.on('socket', (socket) => socket.unref());
      addRequest(req, options);
    };
    return agent;
  }

  private failed(reason: string, refused = false): void {
    this.reason = reason;
    this.refused = refused;
  }

  private async send(http: Transport, data: Uint8Array, timeoutMillis: number) {
    const deadline = Date.now() + timeoutMillis;
    for (let retry = 0; ; retry++) {
      const result = await http.send(data, Math.max(deadline - Date.now(), 1));
      if (this.current !== undefined) this.current.answered = true;
      if (result.status === 'success') {
        this.refused = false;
        return result;
      }
      const code = result.error?.code;
      if (code === 'ECONNREFUSED') this.failed('refused the connection', true);
      else if (result.error?.message === 'Request timed out')
        this.failed(`did not answer within ${timeoutMillis} ms`);
      else if (typeof code === 'string') this.failed(`could not be reached (${code})`);
      if (result.status !== 'retryable' || retry >= MAX_RETRIES || this.stopping) return result;
      const wait = retryDelay(retry, result.retryInMillis, this.random());
      if (wait > deadline - Date.now() || !(await this.sleep(wait))) return result;
    }
  }

  /** Waits `ms` without holding the process; `false` when {@link stop} cut it short. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleeps.delete(wake);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.sleeps.delete(wake);
        resolve(!this.stopping);
      }, ms);
      timer.unref();
      this.sleeps.add(wake);
    });
  }
}
