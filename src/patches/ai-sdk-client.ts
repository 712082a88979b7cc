import type { TelemetrySource } from '../internal-types.js';
import { traceOutgoingRequest, type RequestFn } from '../client/request.js';
import { AI_SDK_CLIENT } from '../client/shapes.js';
import { isRecord } from '@omcp/tool-failure/wire';
import type { Wrap } from './protocol.js';

/** Supported `@ai-sdk/mcp` versions (one line, closed range). */
export const AI_SDK_MCP_RANGE = '>=2.0.0 <3';
/** Every version outside {@link AI_SDK_MCP_RANGE}: loading one is said, not passed over. */
export const AI_SDK_MCP_OUTSIDE = '<2.0.0 || >=3';

/**
 * The method of `@ai-sdk/mcp`'s client that sends exactly one JSON-RPC request: `requestOnce`
 * in the releases that speak 2026-07-28 (its `request` above it may send several, one per
 * input-required round), `request` in earlier 2.0.x releases such as 2.0.50.
 */
export function aiSdkSendMethod(target: object): 'requestOnce' | 'request' | undefined {
  const record = target as Record<string, unknown>;
  if (typeof record.requestOnce === 'function') return 'requestOnce';
  if (typeof record.request === 'function' && typeof record.callTool === 'function')
    return 'request';
  return undefined;
}

/**
 * Whether `value` is an `@ai-sdk/mcp` client (what `createMCPClient` resolves to): its own
 * request counter and response table, and a method that sends one request. The MCP SDK's
 * `Client` keeps those under other names (`_requestMessageId`, `_responseHandlers`).
 */
export function isAiSdkClient(value: unknown): value is object {
  return (
    isRecord(value) &&
    typeof value.requestMessageId === 'number' &&
    value.responseHandlers instanceof Map &&
    aiSdkSendMethod(value) !== undefined
  );
}

/**
 * The patch of the AI SDK's client (on its prototype or on one client): the method that sends
 * one request makes the same CLIENT span as the MCP SDK's `Protocol.request`, through the same
 * code. False when the client has no such method (an API this version does not know).
 */
export function patchAiSdkClient(target: object, source: TelemetrySource, wrap: Wrap): boolean {
  const name = aiSdkSendMethod(target);
  if (name === undefined) return false;
  wrap(
    target,
    name,
    (original) =>
      function sendOneRequest(this: unknown, first: unknown, ...rest: unknown[]): unknown {
        if (!source.active() || typeof this !== 'object' || this === null)
          return original.call(this, first, ...rest);
        return traceOutgoingRequest(
          source,
          AI_SDK_CLIENT,
          this,
          original as RequestFn,
          first,
          rest,
        );
      },
  );
  return true;
}

/**
 * The prototype of the client class `@ai-sdk/mcp` keeps private (only `createMCPClient` is
 * exported, and it resolves after `initialize`, too late to patch the first client): one
 * client is constructed over a transport of ours that refuses to start, and an unrequested
 * message handed to it makes the client call its `onUncaughtError` option as its own method,
 * synchronously, before anything is sent. Nothing leaves the process; the client's start
 * fails and it closes. `undefined` when the module does not behave so (an API it does not know).
 */
export function aiSdkClientPrototype(exports: Record<string, unknown>): object | undefined {
  const create = exports.createMCPClient;
  if (typeof create !== 'function') return undefined;
  let proto: object | undefined;
  const transport: Record<string, unknown> = {
    start: () => Promise.reject(new Error('@omcp/instrumentation-mcp: probe transport')),
    send: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  try {
    const pending: unknown = (create as (config: object) => unknown)({
      transport,
      onUncaughtError(this: unknown) {
        if (typeof this === 'object' && this !== null)
          proto = Object.getPrototypeOf(this) as object;
      },
    });
    if (pending instanceof Promise) pending.catch(() => undefined);
    const onmessage = transport.onmessage;
    if (typeof onmessage === 'function')
      onmessage.call(transport, { jsonrpc: '2.0', method: 'omcp/probe' });
  } catch {
    return undefined;
  }
  return proto !== undefined && aiSdkSendMethod(proto) !== undefined ? proto : undefined;
}

/** What an application whose `@ai-sdk/mcp` cannot be patched is told, once. */
export function aiSdkNotInstrumented(version: string | undefined, why: 'version' | 'api'): string {
  const named = `@ai-sdk/mcp ${version ?? '(version unknown)'}`;
  const reason =
    why === 'version'
      ? `this package supports @ai-sdk/mcp ${AI_SDK_MCP_RANGE}`
      : 'its client class or its request method was not found';
  return `mcp: ${named} is not instrumented (${reason}): its MCP requests get no client spans and no trace context in params._meta. Use a supported version (tested: 2.0.99), or the MCP SDK's Client`;
}
