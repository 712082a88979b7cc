import {
  SpanKind,
  context,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { JsonRpcMessage, TelemetrySource } from '../internal-types.js';
import { operationAttributes, setRequestAttributes, spanNameOf } from '../shared/attributes.js';
import { errorTypeOf, ERROR_TYPE_TIMEOUT } from '../shared/error-type.js';
import { injectIntoParams } from '../shared/propagation.js';
import { requestVersion, runHook } from '../shared/record.js';
import { copyWith, field, isRecord } from '@omcp/tool-failure/wire';
import { recordPeer } from './peer.js';
import { completeClientReply, recordClientError } from './request.js';
import { SDK_PROTOCOL } from './shapes.js';

const DISCOVER = 'server/discover';
/** A transport whose connect-time probes are being traced (a second layer of patching skips it). */
const PROBING = Symbol.for('omcp.mcp.probing');

type Send = (this: unknown, message: JsonRpcMessage, options?: unknown) => Promise<void>;
type OnMessage = (this: unknown, message: JsonRpcMessage, extra?: unknown) => void;

/** One probe in flight: its span, from the send to the reply. */
interface Probe {
  span: Span;
  ctx: Context;
  attrs: Attributes;
  params: unknown;
  start: number;
}

/** A transport the tap replaced `send` on, and how to put it back. */
interface Watched {
  transport: Record<string | symbol, unknown>;
  send: Send;
  ownSend: boolean;
  tapped: Send;
}

/**
 * Runs `connect` (the MCP SDK 2.x `Client.connect(transport, options)`) with its connect-time
 * `server/discover` probes traced: the SDK sends them on the raw transport before its `Protocol`
 * attaches (so `request()` and its client span never see them), in place or, for its own stdio
 * transport, on a short-lived sibling process spawned from the same parameters. Each probe gets
 * a CLIENT span parented on the context active at `connect()`, its trace context in a copy of
 * the probe's `_meta`. Any failure of the tap falls back to the plain `connect`.
 */
export function traceConnectProbes(
  source: TelemetrySource,
  client: object,
  args: unknown[],
  connect: (...args: unknown[]) => unknown,
): unknown {
  let tap: ProbeTap | undefined;
  try {
    const transport = args[0];
    if (source.active() && isRecord(transport) && transport[PROBING as never] !== true)
      tap = new ProbeTap(source, client, context.active(), transport);
  } catch (err) {
    source.diag.error('mcp: could not trace the server/discover probe', err);
  }
  if (tap === undefined) return connect(...args);
  const watching = tap;
  let result: unknown;
  try {
    result = connect(...args);
  } catch (error) {
    watching.settle(error);
    throw error;
  }
  if (result instanceof Promise)
    result.then(
      () => watching.settle(undefined),
      (error: unknown) => watching.settle(error),
    );
  else watching.settle(undefined);
  return result;
}

/** The probes of one `connect()`: on its transport and on any sibling the SDK spawns for it. */
class ProbeTap {
  private readonly pending = new Map<string, Probe>();
  private readonly watched: Watched[] = [];
  private readonly handlers = new WeakSet<object>();
  private readonly session: Record<string | symbol, unknown>;
  private active = true;
  /** The constructor shadowing the session transport's own, while siblings are watched. */
  private sibling: unknown;

  constructor(
    private readonly source: TelemetrySource,
    private readonly client: object,
    private readonly parent: Context,
    transport: Record<string | symbol, unknown>,
  ) {
    this.session = transport;
    this.watch(transport);
    this.watchSiblings(transport);
  }

  /** Ends what got no reply, puts back what the tap replaced (where nothing replaced it since). */
  settle(error: unknown): void {
    try {
      this.active = false;
      const errorType = error === undefined ? ERROR_TYPE_TIMEOUT : errorTypeOf(error);
      for (const [id, probe] of this.pending) this.end(id, probe, { errorType });
      for (const w of this.watched) {
        delete w.transport[PROBING];
        if (w.transport.send !== w.tapped) continue;
        if (w.ownSend) w.transport.send = w.send;
        else delete w.transport.send;
      }
      if (this.sibling !== undefined && this.session.constructor === this.sibling)
        Reflect.deleteProperty(this.session, 'constructor');
    } catch (err) {
      this.source.diag.error('mcp: could not end the server/discover probe spans', err);
    }
  }

  private watch(transport: Record<string | symbol, unknown>): void {
    const send = transport.send;
    if (typeof send !== 'function') return;
    const tapped = probeSend(send as Send, {
      active: () => this.active,
      sent: (id, message) => {
        try {
          return this.sent(transport, id, message);
        } catch (err) {
          this.source.diag.error('mcp: could not start the server/discover client span', err);
          return message;
        }
      },
      failed: (id, error) => this.failed(id, error),
    });
    this.watched.push({
      transport,
      send: send as Send,
      ownSend: Object.hasOwn(transport, 'send'),
      tapped,
    });
    transport.send = tapped;
    transport[PROBING] = true;
  }

  /**
   * The SDK probes its own stdio transport on a sibling it builds with
   * `new transport.constructor(params)`: for the length of `connect()`, that constructor (an own
   * property shadowing the inherited one) builds the real sibling and watches it too.
   */
  private watchSiblings(transport: Record<string | symbol, unknown>): void {
    if (!('stderr' in transport && 'pid' in transport)) return;
    const Real = transport.constructor;
    if (typeof Real !== 'function' || Object.hasOwn(transport, 'constructor')) return;
    const Sibling = siblingOf(Real, (sibling) => {
      try {
        if (this.active) this.watch(sibling);
      } catch (err) {
        this.source.diag.error('mcp: could not trace the server/discover probe', err);
      }
    });
    this.sibling = Sibling;
    Object.defineProperty(transport, 'constructor', {
      value: Sibling,
      configurable: true,
      writable: true,
      enumerable: false,
    });
  }

  /** Starts the probe's span; returns the message to send (its `_meta` carrying the context). */
  private sent(
    transport: Record<string | symbol, unknown>,
    id: string,
    message: JsonRpcMessage,
  ): JsonRpcMessage {
    // A probe sent again (after a timeout, or with the version the server asked for) ends the
    // one before it, which got no usable reply.
    for (const [earlier, probe] of this.pending)
      this.end(earlier, probe, { errorType: ERROR_TYPE_TIMEOUT });
    const config = this.source.config();
    const params = field(message, 'params');
    const attrs = operationAttributes(transport, DISCOVER, undefined, requestVersion(params));
    const span = this.source
      .tracer()
      .startSpan(
        spanNameOf(DISCOVER, undefined),
        { kind: SpanKind.CLIENT, attributes: attrs },
        this.parent,
      );
    setRequestAttributes(span, DISCOVER, params, id, transport);
    const ctx = trace.setSpan(this.parent, span);
    this.pending.set(id, { span, ctx, attrs, params, start: performance.now() });
    this.watchReplies(transport);
    if (config.requestHook !== undefined)
      runHook(this.source, config.requestHook, span, {
        side: 'client',
        method: DISCOVER,
        target: undefined,
        params,
      });
    if (!config.propagateContext) return message;
    return copyWith(message as object, 'params', injectIntoParams(params, ctx)) as JsonRpcMessage;
  }

  /** The reply comes to the handler the SDK installed for the probe: see it first. */
  private watchReplies(transport: Record<string | symbol, unknown>): void {
    const handler = transport.onmessage;
    if (typeof handler !== 'function' || this.handlers.has(handler)) return;
    const watching = replyWatcher(handler as OnMessage, (message) => {
      try {
        this.received(message);
      } catch (err) {
        this.source.diag.error('mcp: could not record the server/discover reply', err);
      }
    });
    this.handlers.add(watching);
    transport.onmessage = watching;
  }

  private received(message: JsonRpcMessage): void {
    if (!isRecord(message) || 'method' in message) return;
    const id = field(message, 'id');
    if (typeof id !== 'string') return;
    const probe = this.pending.get(id);
    if (probe === undefined) return;
    const error = field(message, 'error');
    if (error !== undefined) this.end(id, probe, { error });
    else this.end(id, probe, { result: field(message, 'result') });
  }

  private failed(id: string, error: unknown): void {
    const probe = this.pending.get(id);
    if (probe !== undefined) this.end(id, probe, { error });
  }

  /** Ends a probe's span with its result, its error, or what stands for the missing reply. */
  private end(
    id: string,
    probe: Probe,
    outcome: { result: unknown } | { error: unknown } | { errorType: string },
  ): void {
    this.pending.delete(id);
    const { span, attrs } = probe;
    try {
      const config = this.source.config();
      let metricAttrs = attrs;
      const result = 'result' in outcome ? outcome.result : undefined;
      recordPeer(
        span,
        SDK_PROTOCOL,
        this.client,
        DISCOVER,
        result,
        config.metaKey,
        config.maxAttributeLength,
      );
      const error = 'error' in outcome ? outcome.error : undefined;
      if ('error' in outcome) metricAttrs = recordClientError(span, attrs, error, undefined);
      else if ('errorType' in outcome)
        metricAttrs = recordClientError(span, attrs, undefined, undefined, outcome.errorType);
      completeClientReply(this.source, config, span, {
        call: { method: DISCOVER, target: undefined, params: probe.params },
        reply: 'result' in outcome ? { result } : { error },
        failure: undefined,
        metricAttrs,
        start: probe.start,
        ctx: probe.ctx,
      });
    } catch (err) {
      this.source.diag.error('mcp: could not record the server/discover reply', err);
    } finally {
      span.end();
    }
  }
}

/** The id of a connect-time probe: a `server/discover` request with a string id (the SDK's own). */
function probeId(message: unknown): string | undefined {
  if (field(message, 'method') !== DISCOVER) return undefined;
  const id = field(message, 'id');
  return typeof id === 'string' ? id : undefined;
}

/** What a tapped `send` asks of its tap. */
interface SendTap {
  active(): boolean;
  /** A probe is being sent: the message to send instead. */
  sent(id: string, message: JsonRpcMessage): JsonRpcMessage;
  failed(id: string, error: unknown): void;
}

/** `send` with the probes it sends traced (while the tap is active); everything else untouched. */
function probeSend(send: Send, tap: SendTap): Send {
  return function tappedProbeSend(this: unknown, message, options) {
    const id = tap.active() ? probeId(message) : undefined;
    if (id === undefined) return send.call(this, message, options);
    const sending = send.call(this, tap.sent(id, message), options);
    if (!(sending instanceof Promise)) return sending;
    return sending.catch((error: unknown) => {
      tap.failed(id, error);
      throw error;
    });
  };
}

/** The transport's handler, seeing each message first. */
function replyWatcher(handler: OnMessage, see: (message: JsonRpcMessage) => void): OnMessage {
  return function watchingProbeReply(this: unknown, message, extra) {
    see(message);
    return handler.call(this, message, extra);
  };
}

/**
 * A stand-in for the transport class `Real` that builds the real object and hands it to `built`.
 * It has `Real`'s name and prototype: whatever reads the transport's class (its name gives the
 * network attributes) still sees `Real`.
 */
function siblingOf(
  Real: unknown,
  built: (sibling: Record<string | symbol, unknown>) => void,
): (...args: unknown[]) => object {
  const ctor = Real as new (...args: unknown[]) => object;
  const Sibling = function (...args: unknown[]): object {
    const sibling = Reflect.construct(ctor, args) as Record<string | symbol, unknown>;
    built(sibling);
    return sibling;
  };
  Object.defineProperty(Sibling, 'name', { value: ctor.name });
  Sibling.prototype = ctor.prototype;
  return Sibling;
}
