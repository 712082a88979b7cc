import { context } from '@opentelemetry/api';
import type { JsonRpcMessage, TelemetrySource, TransportLike } from '../internal-types.js';
import { field, isRecord, ownValue } from '@omcp/tool-failure/wire';
import { fallbackCall, type ServerCall } from './call-context.js';
import { OpenCalls } from './open-calls.js';
import { endCall, finishServerCall, startServerCall } from './server-call.js';

const TAPPED = Symbol.for('omcp.mcp.tapped');

/**
 * Taps a connected transport of a server-side (receiving) `Protocol`: one SERVER span per
 * incoming request, from the moment it arrives until its response is sent, so failures
 * the SDK produces before any handler runs are recorded too. The response for `tools/call`
 * may gain a failure object (a copy of the result; the SDK's own object is not touched).
 */
export function tapTransport(
  source: TelemetrySource,
  protocol: object,
  transport: TransportLike,
): void {
  if (typeof transport !== 'object' || transport === null) return;
  const marked = transport as unknown as Record<symbol, unknown>;
  if (marked[TAPPED] === true) return;
  const calls = new OpenCalls<ServerCall>();
  const onmessage = transport.onmessage;
  const send = transport.send;
  const onclose = transport.onclose;
  if (typeof onmessage !== 'function' || typeof send !== 'function') return;
  marked[TAPPED] = true;

  transport.onmessage = function tappedOnMessage(
    this: unknown,
    message: JsonRpcMessage,
    extra?: unknown,
  ): void {
    if (!source.active()) return onmessage.call(this, message, extra);
    let call: ServerCall | undefined;
    try {
      call = startTappedCall(source, protocol, transport, calls, message, extra);
    } catch (err) {
      source.diag.error('mcp: could not start a server span', err);
    }
    if (call === undefined) return onmessage.call(this, message, extra);
    const started = call;
    return context.with(started.ctx, () =>
      context.active() === started.ctx
        ? onmessage.call(this, message, extra)
        : fallbackCall.run(started, () => onmessage.call(this, message, extra)),
    );
  };

  transport.send = function tappedSend(
    this: unknown,
    message: JsonRpcMessage,
    options?: unknown,
  ): Promise<void> {
    let outgoing = message;
    try {
      outgoing = finishTappedCall(source, protocol, calls, message);
    } catch (err) {
      source.diag.error('mcp: could not record a server response', err);
    }
    return send.call(this, outgoing, options);
  };

  transport.onclose = function tappedOnClose(this: unknown): void {
    try {
      for (const call of calls.values()) endCall(source, call, 'transport_closed');
      calls.clear();
    } catch (err) {
      source.diag.error('mcp: could not end open server spans', err);
    }
    return onclose?.call(this);
  };
}

/** A request's call, registered by its id; a cancellation ends the call it names. */
function startTappedCall(
  source: TelemetrySource,
  protocol: object,
  transport: TransportLike,
  calls: OpenCalls<ServerCall>,
  message: JsonRpcMessage,
  extra: unknown,
): ServerCall | undefined {
  if (!isRecord(message)) return undefined;
  const id = field(message, 'id');
  if (id === undefined || id === null) {
    if (field(message, 'method') === 'notifications/cancelled') {
      const requestId = ownValue(ownValue(message, 'params'), 'requestId');
      const call = calls.get(requestId);
      if (call !== undefined) {
        calls.delete(requestId);
        endCall(source, call, 'cancelled');
      }
    }
    return undefined;
  }
  const call = startServerCall(source, protocol, transport, message, extra);
  if (call === undefined) return undefined;
  const previous = calls.get(id);
  if (previous !== undefined) endCall(source, previous, 'superseded');
  calls.set(id, call);
  return call;
}

/** The response of a registered call ends it; anything else goes out untouched. */
function finishTappedCall(
  source: TelemetrySource,
  protocol: object,
  calls: OpenCalls<ServerCall>,
  message: JsonRpcMessage,
): JsonRpcMessage {
  if (!isRecord(message) || 'method' in message) return message;
  const id = field(message, 'id');
  const call = calls.get(id);
  if (call === undefined) return message;
  calls.delete(id);
  return finishServerCall(source, protocol, call, message);
}
