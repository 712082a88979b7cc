/**
 * The 2026-07-28 revision's per-request envelope, as a client below the SDK (the checkers'
 * wire) sends it: the `_meta` keys every request carries and the HTTP headers that repeat the
 * method and the name (SEP-2243).
 */
import { isRecord } from './safe.js';

/** The revision that has no sessions and no `initialize`. */
export const MODERN_REVISION = '2026-07-28';

/** The `_meta` key under which 2026-07-28 puts the protocol version in every request. */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** Who the client is, in every request of that revision. */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
/** What the client can do, in every request of that revision. */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** `params` with the envelope added to a copy of its `_meta` (keys already there are kept). */
export function withEnvelope(
  params: Record<string, unknown>,
  clientInfo: { name: string; version: string },
): Record<string, unknown> {
  const meta = isRecord(params._meta) ? params._meta : {};
  return {
    ...params,
    _meta: {
      [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION,
      [CLIENT_INFO_META_KEY]: clientInfo,
      [CLIENT_CAPABILITIES_META_KEY]: {},
      ...meta,
    },
  };
}

/** The methods whose `Mcp-Name` header repeats a param, and which param. */
const NAMED_BY: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The HTTP headers of one request of that revision: its version, method and name. */
export function envelopeHeaders(method: string, params: unknown): Record<string, string> {
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN_REVISION,
    'mcp-method': method,
  };
  const key = NAMED_BY[method];
  const name = key !== undefined && isRecord(params) ? params[key] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return headers;
}
