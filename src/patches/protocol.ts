import type { TelemetrySource, TransportLike } from '../internal-types.js';
import { traceOutgoingRequest, type RequestFn } from '../client/request.js';
import { SDK_PROTOCOL } from '../client/shapes.js';
import { traceConnectProbes } from '../client/discover-probe.js';
import { wrapRequestHandler, wrapToolCallback } from '../server/handlers.js';
import { tapTransport } from '../server/transport-tap.js';
import { isRecord } from '@omcp/tool-failure/wire';

type AnyFn = (this: unknown, ...args: unknown[]) => unknown;
/**
 * How a patch replaces one method: on a prototype (auto mode) the instrumentation supplies
 * shimmer's `_wrap`; on one object (manual mode) {@link wrapOwn} shadows the method with an own
 * property. The same patches run through either, so the two modes cannot drift apart.
 */
export type Wrap = (target: object, name: string, wrapper: (original: AnyFn) => AnyFn) => void;

/** The {@link Wrap} of manual mode: an own property over the inherited method. */
export const wrapOwn: Wrap = (target, name, wrapper) => {
  const record = target as Record<string, unknown>;
  const original = record[name];
  if (typeof original === 'function') record[name] = wrapper(original as AnyFn);
};

/**
 * The three patches of an MCP `Protocol` (SDK 1.x and 2.x have the same shape), on a prototype
 * or on one object:
 * `connect` taps the transport for server spans, `request` makes client spans and
 * propagates context, `setRequestHandler` notes thrown errors. Each falls back to the
 * original on any instrumentation failure.
 */
export function patchProtocol(proto: object, source: TelemetrySource, wrap: Wrap): void {
  wrap(
    proto,
    'connect',
    (original) =>
      function connect(this: unknown, ...args: unknown[]): unknown {
        // On one client object (manual mode) this is its outermost `connect`: the SDK 2.x
        // Client's connect-time probe happens inside it.
        const result = isClient(this)
          ? traceConnectProbes(source, this, args, (...a) => original.apply(this, a))
          : original.apply(this, args);
        // The SDK installs its transport callbacks synchronously, before its first await.
        if (source.active()) tapConnected(source, this, args[0]);
        return result;
      },
  );
  wrap(
    proto,
    'request',
    (original) =>
      function request(this: unknown, req: unknown, ...rest: unknown[]): unknown {
        if (!source.active() || typeof this !== 'object' || this === null)
          return original.call(this, req, ...rest);
        return traceOutgoingRequest(source, SDK_PROTOCOL, this, original as RequestFn, req, rest);
      },
  );
  wrap(
    proto,
    'setRequestHandler',
    (original) =>
      function setRequestHandler(this: unknown, ...args: unknown[]): unknown {
        return original.apply(this, wrapLastHandler(source, args));
      },
  );
}

/**
 * The patch of the SDK 2.x `Client.connect` (its prototype, auto mode), which sends the
 * connect-time `server/discover` probe on the raw transport before `Protocol.connect` runs: the
 * probe gets its client span, parented on the context active at `connect()`.
 */
export function patchClientConnect(proto: object, source: TelemetrySource, wrap: Wrap): void {
  wrap(
    proto,
    'connect',
    (original) =>
      function connect(this: unknown, ...args: unknown[]): unknown {
        if (!source.active() || !isClient(this)) return original.apply(this, args);
        return traceConnectProbes(source, this, args, (...a) => original.apply(this, a));
      },
  );
}

/** An MCP SDK client (1.x or 2.x): it holds the server's capabilities. */
function isClient(protocol: unknown): protocol is object {
  return (
    typeof protocol === 'object' &&
    protocol !== null &&
    typeof (protocol as Record<string, unknown>).getServerCapabilities === 'function'
  );
}

/**
 * The two patches of `McpServer` (prototype or object): tool callbacks registered through it,
 * and those given later to the registered tool's `update({ callback })`, note what they throw.
 */
export function patchMcpServer(proto: object, wrap: Wrap): void {
  for (const name of ['tool', 'registerTool']) {
    if (typeof (proto as Record<string, unknown>)[name] !== 'function') continue;
    wrap(
      proto,
      name,
      (original) =>
        function registerToolPatched(this: unknown, ...args: unknown[]): unknown {
          return wrapRegisteredTool(original.apply(this, wrapLastCallback(args)));
        },
    );
  }
}

/** Taps the transport of an already connected protocol object (manual mode). */
export function tapConnected(source: TelemetrySource, protocol: unknown, transport: unknown): void {
  try {
    if (typeof protocol === 'object' && protocol !== null && isRecord(transport)) {
      tapTransport(source, protocol, transport as unknown as TransportLike);
    }
  } catch (err) {
    source.diag.error('mcp: could not tap the transport', err);
  }
}

/** `setRequestHandler(schemaOrMethod, [options,] handler)`: wraps the handler, wherever it is. */
export function wrapLastHandler(source: TelemetrySource, args: unknown[]): unknown[] {
  const i = lastFunctionIndex(args);
  if (i < 0) return args;
  const copy = [...args];
  copy[i] = wrapRequestHandler(copy[i] as AnyFn, source);
  return copy;
}

function wrapLastCallback(args: unknown[]): unknown[] {
  const i = lastFunctionIndex(args);
  if (i < 0) return args;
  const copy = [...args];
  copy[i] = wrapToolCallback(copy[i] as AnyFn);
  return copy;
}

/** A registered tool's `update({ callback })` must keep the error capture. */
export function wrapRegisteredTool(registered: unknown): unknown {
  if (!isRecord(registered) || typeof registered.update !== 'function') return registered;
  const update = registered.update as AnyFn;
  registered.update = function (this: unknown, updates: unknown): unknown {
    if (isRecord(updates) && typeof updates.callback === 'function') {
      return update.call(this, {
        ...updates,
        callback: wrapToolCallback(updates.callback as AnyFn),
      });
    }
    return update.call(this, updates);
  };
  return registered;
}

function lastFunctionIndex(args: unknown[]): number {
  for (let i = args.length - 1; i >= 0; i--) if (typeof args[i] === 'function') return i;
  return -1;
}
