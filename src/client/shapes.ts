import { negotiatedVersion, requestVersion } from '../shared/record.js';
import { copyWith, field, isRecord, ownString, ownValue } from '@omcp/tool-failure/wire';

/**
 * Where one MCP client implementation keeps what a client span reads, around the one method
 * that sends one JSON-RPC request. The span itself is made once, in `client/request.ts`, for
 * every implementation.
 */
export interface ClientShape {
  /** The JSON-RPC request (`{ method, params }`) the call sends, from its first argument. */
  requestOf(first: unknown): unknown;
  /** The first argument as the original method gets it, carrying `request` (a copy) instead. */
  withRequest(first: unknown, request: Record<string, unknown>): unknown;
  /** The client's transport (network attributes, the session id). */
  transportOf(self: object): unknown;
  /** The id the client gives the request it sends next. */
  nextIdOf(self: object): unknown;
  /** The protocol version the request goes out with, when known. */
  versionOf(self: object, method: string, params: unknown): string | undefined;
  /** The caller's abort signal, if the call carries one. */
  signalOf(first: unknown, rest: unknown[]): unknown;
  /** The server's capabilities as the client holds them (after `initialize` or discovery). */
  serverCapabilitiesOf(self: object): unknown;
  /** The server's implementation (`{ name, version }`) as the client holds it. */
  serverInfoOf(self: object): unknown;
}

/**
 * The MCP TypeScript SDK's `Protocol.request(request, [schema,] options)` (1.x and 2.x): the
 * request is the first argument. Request options follow the result schema in 1.x
 * (`request(req, schema, options)`); in 2.x the schema is optional and `callTool` passes the
 * options second (`request(req, options)`).
 */
export const SDK_PROTOCOL: ClientShape = {
  requestOf: (first) => first,
  withRequest: (_first, request) => request,
  transportOf: (self) => field(self, '_transport'),
  // The SDK numbers requests from this counter; the next value is this request's id.
  nextIdOf: (self) => field(self, '_requestMessageId'),
  // The negotiated version first: it costs no read of the request's `_meta`.
  versionOf: (self, _method, params) => negotiatedVersion(self) ?? requestVersion(params),
  signalOf: (_first, rest) =>
    rest
      .slice(0, 2)
      .map((arg) => (isRecord(arg) ? ownValue(arg, 'signal') : undefined))
      .find((s) => s instanceof AbortSignal),
  // The SDK's Client (1.x and 2.x) keeps what `initialize` or its `server/discover` probe taught.
  serverCapabilitiesOf: (self) => field(self, '_serverCapabilities'),
  serverInfoOf: (self) => field(self, '_serverVersion'),
};

/**
 * The Vercel AI SDK's own client (`@ai-sdk/mcp` 2.x, which does not use the MCP SDK): each
 * JSON-RPC request goes through `requestOnce({ request, resultSchema, options })` (`request`
 * in earlier 2.0.x releases such as 2.0.50, with the same argument), which numbers it from `requestMessageId` and, on
 * 2026-07-28, adds its envelope to a copy of `params._meta`, keeping the keys already there.
 */
export const AI_SDK_CLIENT: ClientShape = {
  requestOf: (first) => field(first, 'request'),
  withRequest: (first, request) => copyWith(first as object, 'request', request),
  transportOf: (self) => field(self, 'transport'),
  nextIdOf: (self) => field(self, 'requestMessageId'),
  // The client keeps the version its requests go out with; before `initialize` answers, the
  // version it asks for is not yet the session's (the SDK client names none then either).
  versionOf: (self, method, params) =>
    negotiatedVersion(self) ??
    requestVersion(params) ??
    (method === 'initialize' ? undefined : ownString(self, 'protocolVersion')),
  signalOf: (first) => {
    const signal = ownValue(ownValue(first, 'options'), 'signal');
    return signal instanceof AbortSignal ? signal : undefined;
  },
  serverCapabilitiesOf: (self) => field(self, 'serverCapabilities'),
  // Empty strings until `initialize` or `server/discover` answers: read as nothing known.
  serverInfoOf: (self) => field(self, '_serverInfo'),
};
