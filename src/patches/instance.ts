import { wrapRequestHandler, wrapToolCallback } from '../server/handlers.js';
import { isRecord } from '@omcp/tool-failure/wire';
import type { TelemetrySource } from '../internal-types.js';
import { isAiSdkClient, patchAiSdkClient } from './ai-sdk-client.js';
import {
  patchMcpServer,
  patchProtocol,
  tapConnected,
  wrapOwn,
  wrapRegisteredTool,
} from './protocol.js';
import { patchTmcpServer } from './tmcp.js';

const MANUAL = Symbol.for('omcp.mcp.manual');
type AnyFn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Instruments one client object in place: the prototype patches applied to the object itself.
 * An MCP SDK client's connection already made is tapped now; an `@ai-sdk/mcp` client (which
 * `createMCPClient` hands over connected and initialized) gets its request patch.
 */
export function instrumentClientWith<T extends object>(source: TelemetrySource, client: T): T {
  try {
    if (isAiSdkClient(client)) {
      if (mark(client)) patchAiSdkClient(client, source, wrapOwn);
    } else instrumentProtocolInstance(source, client);
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
    } else if (isTmcpServer(record)) {
      // tmcp's own server: its tools registered before this are out of reach (a private map).
      if (mark(server)) patchTmcpServer(server, source, wrapOwn);
    } else {
      instrumentProtocolInstance(source, server);
    }
  } catch (err) {
    source.diag.error('mcp: could not instrument the server', err);
  }
  return server;
}

/** tmcp's `McpServer`: it receives messages from its transports, and connects to none. */
function isTmcpServer(server: Record<string, unknown>): boolean {
  return (
    typeof server.receive === 'function' &&
    typeof server.tool === 'function' &&
    typeof server.connect !== 'function'
  );
}

/** Marks `target` instrumented; false when it already was. */
function mark(target: object): boolean {
  const record = target as Record<symbol, unknown>;
  if (record[MANUAL] === true) return false;
  record[MANUAL] = true;
  return true;
}

function instrumentProtocolInstance(source: TelemetrySource, target: object): void {
  if (!mark(target)) return;
  patchProtocol(target, source, wrapOwn);
  // What the object already has: handlers registered before, a transport connected before.
  const record = target as Record<string, unknown>;
  const handlers = record._requestHandlers;
  if (handlers instanceof Map) {
    for (const [method, handler] of handlers) {
      if (typeof handler === 'function')
        handlers.set(method, wrapRequestHandler(handler as AnyFn, source));
    }
  }
  if (isRecord(record._transport)) tapConnected(source, target, record._transport);
}

function instrumentMcpServerInstance(server: Record<string, unknown>): void {
  if (!mark(server)) return;
  patchMcpServer(server, wrapOwn);
  // Tools registered before: their callbacks, and what update() will give them.
  for (const tool of Object.values(server._registeredTools as Record<string, unknown>)) {
    wrapRegisteredToolCallback(tool);
    wrapRegisteredTool(tool);
  }
}

/**
 * Wraps the callback fields of a tool registered before instrumenting: `callback` (older 1.x),
 * `handler` (newer 1.x, read on every call) and `executor` (2.x, a closure over the handler
 * built at registration, which is what 2.x calls).
 */
function wrapRegisteredToolCallback(tool: unknown): void {
  if (!isRecord(tool)) return;
  for (const field of ['handler', 'callback', 'executor']) {
    const cb = tool[field];
    if (typeof cb === 'function') tool[field] = wrapToolCallback(cb as AnyFn);
  }
}
