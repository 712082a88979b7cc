import { traceOutgoingRequest, type RequestFn } from './core/client.js';
import { wrapRequestHandler, wrapToolCallback } from './core/server.js';
import { isRecord } from './core/safe.js';
import type { TelemetrySource } from './internal-types.js';
import { tapConnected, wrapLastHandler } from './patches/protocol.js';

const MANUAL = Symbol.for('omcp.mcp.manual');
type AnyFn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Instruments one client-side protocol object in place: its own `request` and `connect`
 * shadow the prototype's, and a connection already made is tapped now.
 */
export function instrumentClientWith<T extends object>(source: TelemetrySource, client: T): T {
  try {
    instrumentProtocolInstance(source, client);
  } catch (err) {
    source.diag.error('mcp: could not instrument the client', err);
  }
  return client;
}

/** Instruments an `McpServer` (and its inner `Server`) or a low-level `Server` in place. */
export function instrumentServerWith<T extends object>(source: TelemetrySource, server: T): T {
  try {
    const record = server as Record<string, unknown>;
    if (
      isRecord(record._registeredTools) &&
      typeof record.server === 'object' &&
      record.server !== null
    ) {
      instrumentMcpServerInstance(record);
      instrumentProtocolInstance(source, record.server);
    } else {
      instrumentProtocolInstance(source, server);
    }
  } catch (err) {
    source.diag.error('mcp: could not instrument the server', err);
  }
  return server;
}

function instrumentProtocolInstance(source: TelemetrySource, target: object): void {
  const record = target as Record<string | symbol, unknown>;
  if (record[MANUAL] === true) return;
  record[MANUAL] = true;
  const request = record.request;
  if (typeof request === 'function') {
    record.request = function (this: unknown, req: unknown, ...rest: unknown[]): unknown {
      if (!source.active() || typeof this !== 'object' || this === null)
        return (request as AnyFn).call(this, req, ...rest);
      return traceOutgoingRequest(source, this, request as RequestFn, req, rest);
    };
  }
  const connect = record.connect;
  if (typeof connect === 'function') {
    record.connect = function (this: unknown, ...args: unknown[]): unknown {
      const out = (connect as AnyFn).apply(this, args);
      if (source.active()) tapConnected(source, this, args[0]);
      return out;
    };
  }
  const setRequestHandler = record.setRequestHandler;
  if (typeof setRequestHandler === 'function') {
    record.setRequestHandler = function (this: unknown, ...args: unknown[]): unknown {
      return (setRequestHandler as AnyFn).apply(this, wrapLastHandler(source, args));
    };
  }
  // Handlers registered before instrumenting live in the protocol's handler map.
  const handlers = record._requestHandlers;
  if (handlers instanceof Map) {
    for (const [method, handler] of handlers) {
      if (typeof handler === 'function')
        handlers.set(method, wrapRequestHandler(handler as AnyFn, source));
    }
  }
  if (isRecord(record._transport)) tapConnected(source, target, record._transport);
}

function instrumentMcpServerInstance(server: Record<string | symbol, unknown>): void {
  if (server[MANUAL] === true) return;
  server[MANUAL] = true;
  const tools = server._registeredTools as Record<string, unknown>;
  for (const tool of Object.values(tools)) wrapRegisteredToolCallback(tool);
  for (const name of ['tool', 'registerTool']) {
    const original = server[name];
    if (typeof original !== 'function') continue;
    server[name] = function (this: unknown, ...args: unknown[]): unknown {
      const out = (original as AnyFn).apply(this, args);
      wrapRegisteredToolCallback(out);
      return out;
    };
  }
}

/**
 * Wraps the callback fields of a registered tool: `callback` (older 1.x), `handler` (newer
 * 1.x, read on every call) and `executor` (2.x, a closure over the handler built at registration,
 * which is what 2.x calls).
 */
function wrapRegisteredToolCallback(tool: unknown): void {
  if (!isRecord(tool)) return;
  for (const field of ['handler', 'callback', 'executor']) {
    const cb = tool[field];
    if (typeof cb === 'function') tool[field] = wrapToolCallback(cb as AnyFn);
  }
}
