import type { Attributes, Span } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESOURCE_URI,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from '../semconv.js';
import { ownString, ownValue } from '@omcp/tool-failure/wire';

const RESOURCE_METHODS = new Set([
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** The tool or prompt a request concerns, if any. */
export function targetOf(method: string, params: unknown): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return ownString(params, 'name');
  return undefined;
}

/** `{mcp.method.name} {target}`, or the method alone. */
export function spanNameOf(method: string, target: string | undefined): string {
  return target === undefined ? method : `${method} ${target}`;
}

/**
 * The per-request attributes that are not in `operationAttributes` (the request id, the
 * session id, a resource URI): set on the span after it started, so nothing is copied.
 */
export function setRequestAttributes(
  span: Span,
  method: string,
  params: unknown,
  id: unknown,
  transport: unknown,
): void {
  if (typeof id === 'string' || typeof id === 'number')
    span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(id));
  if (RESOURCE_METHODS.has(method)) {
    const uri = ownString(params, 'uri');
    if (uri !== undefined) span.setAttribute(ATTR_MCP_RESOURCE_URI, uri);
  }
  const sessionId = sessionIdOf(transport);
  if (sessionId !== undefined) span.setAttribute(ATTR_MCP_SESSION_ID, sessionId);
}

/** Operations remembered per transport, beyond which attributes are built afresh per call. */
const MAX_CACHED_OPERATIONS = 512;

interface TransportEntry {
  fixed: Attributes;
  /** By method, then by target (tool or prompt name, or `undefined`). */
  operations: Map<string, Map<string | undefined, Attributes>>;
  size: number;
}

const transports = new WeakMap<object, TransportEntry>();

/**
 * The attributes of an operation that are the same for every call of it on one transport:
 * `mcp.method.name`, the tool or prompt name, `gen_ai.operation.name`, the transport's network
 * attributes and the protocol version. They are exactly the attributes allowed on the metrics,
 * and the base of the span's. The object is frozen and shared between calls: the hot path
 * allocates nothing for it, and the metrics SDK receives the same object each time.
 */
export function operationAttributes(
  transport: unknown,
  method: string,
  target: string | undefined,
  version: string | undefined,
): Attributes {
  if (typeof transport !== 'object' || transport === null)
    return buildOperation(fixedTransportAttributes(transport), method, target, version);
  let entry = transports.get(transport);
  if (entry === undefined) {
    entry = { fixed: fixedTransportAttributes(transport), operations: new Map(), size: 0 };
    transports.set(transport, entry);
  }
  let byTarget = entry.operations.get(method);
  const cached = byTarget?.get(target);
  // The protocol version becomes known at initialize; an entry made before it is replaced.
  if (cached !== undefined && cached[ATTR_MCP_PROTOCOL_VERSION] === version) return cached;
  const built = buildOperation(entry.fixed, method, target, version);
  if (cached === undefined && entry.size >= MAX_CACHED_OPERATIONS) return built;
  if (byTarget === undefined) {
    byTarget = new Map();
    entry.operations.set(method, byTarget);
  }
  if (cached === undefined) entry.size++;
  byTarget.set(target, built);
  return built;
}

function buildOperation(
  fixed: Attributes,
  method: string,
  target: string | undefined,
  version: string | undefined,
): Attributes {
  const attrs: Attributes = { [ATTR_MCP_METHOD_NAME]: method };
  if (method === 'tools/call') {
    if (target !== undefined) attrs[ATTR_GEN_AI_TOOL_NAME] = target;
    attrs[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
  } else if (method === 'prompts/get' && target !== undefined) {
    attrs[ATTR_GEN_AI_PROMPT_NAME] = target;
  }
  Object.assign(attrs, fixed);
  if (version !== undefined) attrs[ATTR_MCP_PROTOCOL_VERSION] = version;
  return Object.freeze(attrs);
}

/** `attrs` plus `extra`, as a new object (the failing paths: the shared objects stay as they are). */
export function withAttributes(attrs: Attributes, extra: Attributes): Attributes {
  return { ...attrs, ...extra };
}

/**
 * The session id of a transport (Streamable HTTP sets it after the first exchange; some
 * transports define it as a getter). Read plainly, as the SDK reads it.
 */
function sessionIdOf(transport: unknown): string | undefined {
  if (typeof transport !== 'object' || transport === null) return undefined;
  return getterString(transport, 'sessionId');
}

function fixedTransportAttributes(transport: unknown): Attributes {
  const attrs: Attributes = {};
  if (typeof transport !== 'object' || transport === null) return attrs;
  let name = '';
  try {
    name = (transport as { constructor?: { name?: unknown } }).constructor?.name as string;
  } catch {
    name = '';
  }
  if (typeof name === 'string') {
    if (/stdio/i.test(name)) attrs[ATTR_NETWORK_TRANSPORT] = 'pipe';
    else if (/http|sse/i.test(name)) {
      attrs[ATTR_NETWORK_TRANSPORT] = 'tcp';
      attrs[ATTR_NETWORK_PROTOCOL_NAME] = 'http';
    } else if (/inmemory/i.test(name)) attrs[ATTR_NETWORK_TRANSPORT] = 'inproc';
  }
  // The MCP SDK's HTTP transports keep it as `_url`, the AI SDK's as `url`.
  const url = ownValue(transport, '_url') ?? ownValue(transport, 'url');
  if (url instanceof URL && url.hostname !== '') {
    attrs[ATTR_SERVER_ADDRESS] = url.hostname.replace(/^\[|\]$/g, '');
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    attrs[ATTR_SERVER_PORT] = port;
  }
  return attrs;
}

function getterString(obj: object, key: string): string | undefined {
  try {
    const v: unknown = (obj as Record<string, unknown>)[key];
    return typeof v === 'string' && v.length > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}
