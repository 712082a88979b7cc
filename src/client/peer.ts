import type { Span } from '@opentelemetry/api';
import {
  ATTR_MCP_TOOL_CALL_SERVER_NAME,
  ATTR_MCP_TOOL_CALL_SERVER_VERSION,
  ATTR_MCP_TOOL_FAILURE_PEER_DECLARED,
} from '../semconv.js';
import { declaresExtension } from '../tool-failure/declaration.js';
import { isRecord, ownString, ownValue } from '../shared/safe.js';
import { truncate } from '../shared/truncate.js';
import type { ClientShape } from './shapes.js';

/** The `_meta` key under which 2026-07-28 results name the server's implementation. */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** The methods whose result carries the server's capabilities. */
const CAPABILITY_RESULTS = new Set(['initialize', 'server/discover']);

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
  const name = ownString(info, 'name');
  if (name !== undefined)
    span.setAttribute(ATTR_MCP_TOOL_CALL_SERVER_NAME, truncate(name, maxLength));
  const version = ownString(info, 'version');
  if (version !== undefined)
    span.setAttribute(ATTR_MCP_TOOL_CALL_SERVER_VERSION, truncate(version, maxLength));

  const fromResult = CAPABILITY_RESULTS.has(method);
  if (!fromResult && method !== 'tools/call') return;
  const capabilities = fromResult
    ? ownValue(result, 'capabilities')
    : shape.serverCapabilitiesOf(self);
  if (isRecord(capabilities))
    span.setAttribute(
      ATTR_MCP_TOOL_FAILURE_PEER_DECLARED,
      declaresExtension(capabilities, metaKey),
    );
}
