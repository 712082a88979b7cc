import type { Span } from '@opentelemetry/api';
import {
  ATTR_MCP_TOOL_CALL_SERVER_NAME,
  ATTR_MCP_TOOL_CALL_SERVER_VERSION,
  ATTR_MCP_TOOL_FAILURE_PEER_DECLARED,
} from '../semconv.js';
import { declaresExtension } from '@omcp/tool-failure';
import { isRecord, ownString, ownValue } from '@omcp/tool-failure/wire';
import { truncate } from '../shared/truncate.js';
import type { ClientShape } from './shapes.js';

/** The `_meta` key under which 2026-07-28 results name the server's implementation. */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** The methods whose result carries the server's capabilities. */
const CAPABILITY_RESULTS = new Set(['initialize', 'server/discover']);

/** A server implementation's name and version as recorded, truncated to `maxLength`. */
interface Identity {
  maxLength: number;
  name: string | undefined;
  version: string | undefined;
}

/**
 * What was read of a `serverInfo` object, by the object: the SDK's client holds one for the
 * whole connection, so the name and version are read and truncated once, not on every call.
 * A result's own `serverInfo` (2026-07-28 `_meta`) is a new object each time and is read anew.
 */
const identities = new WeakMap<object, Identity>();

/** Whether a capabilities object declares the extension, by the object and the extension key. */
const declarations = new WeakMap<object, { metaKey: string; declared: boolean }>();

function identityOf(info: Record<string, unknown>, maxLength: number): Identity {
  const known = identities.get(info);
  if (known !== undefined && known.maxLength === maxLength) return known;
  const name = ownString(info, 'name');
  const version = ownString(info, 'version');
  const identity = {
    maxLength,
    name: name === undefined ? undefined : truncate(name, maxLength),
    version: version === undefined ? undefined : truncate(version, maxLength),
  };
  identities.set(info, identity);
  return identity;
}

function declaredIn(capabilities: Record<string, unknown>, metaKey: string): boolean {
  const known = declarations.get(capabilities);
  if (known !== undefined && known.metaKey === metaKey) return known.declared;
  const declared = declaresExtension(capabilities, metaKey);
  declarations.set(capabilities, { metaKey, declared });
  return declared;
}

/**
 * Records on a client span what the client knows of its server: the implementation's name and
 * version (`serverInfo` from the result's `_meta`, the `initialize` result's own field, else
 * what the client holds), and, on `tools/call` and the results that carry capabilities, whether
 * the server declared the extension `metaKey`. `result` is undefined for a request that failed.
 * Nothing is recorded where nothing is known.
 */
export function recordPeer(
  span: Span,
  shape: ClientShape,
  self: object,
  method: string,
  result: unknown,
  metaKey: string,
  maxLength: number,
): void {
  let info = ownValue(ownValue(result, '_meta'), SERVER_INFO_META_KEY);
  if (!isRecord(info) && method === 'initialize') info = ownValue(result, 'serverInfo');
  if (!isRecord(info)) info = shape.serverInfoOf(self);
  if (isRecord(info)) {
    const { name, version } = identityOf(info, maxLength);
    if (name !== undefined) span.setAttribute(ATTR_MCP_TOOL_CALL_SERVER_NAME, name);
    if (version !== undefined) span.setAttribute(ATTR_MCP_TOOL_CALL_SERVER_VERSION, version);
  }

  const fromResult = CAPABILITY_RESULTS.has(method);
  if (!fromResult && method !== 'tools/call') return;
  const capabilities = fromResult
    ? ownValue(result, 'capabilities')
    : shape.serverCapabilitiesOf(self);
  if (isRecord(capabilities))
    span.setAttribute(ATTR_MCP_TOOL_FAILURE_PEER_DECLARED, declaredIn(capabilities, metaKey));
}
