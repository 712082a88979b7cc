import type { Attributes } from '@opentelemetry/api';
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
import { ownString, ownValue } from './safe.js';

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

/** Semantic-convention attributes of a request, either side. */
export function requestAttributes(method: string, params: unknown, id: unknown): Attributes {
  const attrs: Attributes = { [ATTR_MCP_METHOD_NAME]: method };
  if (typeof id === 'string' || typeof id === 'number') attrs[ATTR_JSONRPC_REQUEST_ID] = String(id);
  if (method === 'tools/call') {
    const name = ownString(params, 'name');
    if (name !== undefined) attrs[ATTR_GEN_AI_TOOL_NAME] = name;
    attrs[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
  } else if (method === 'prompts/get') {
    const name = ownString(params, 'name');
    if (name !== undefined) attrs[ATTR_GEN_AI_PROMPT_NAME] = name;
  } else if (RESOURCE_METHODS.has(method)) {
    const uri = ownString(params, 'uri');
    if (uri !== undefined) attrs[ATTR_MCP_RESOURCE_URI] = uri;
  }
  return attrs;
}

const METRIC_KEYS: readonly string[] = [
  ATTR_MCP_METHOD_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_NETWORK_TRANSPORT,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
];

/** The attributes that are allowed on the operation-duration metrics (no ids, no payloads). */
export function metricAttributesOf(spanAttrs: Attributes): Attributes {
  const out: Attributes = {};
  // A module-level list: a literal here would be allocated on every request.
  for (let i = 0; i < METRIC_KEYS.length; i++) {
    const key = METRIC_KEYS[i] as string;
    const v = spanAttrs[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}

const staticTransportAttributes = new WeakMap<object, Attributes>();

/** `network.transport` (and protocol) from the transport object's class, plus the session id. */
export function transportAttributes(transport: unknown): Attributes {
  const attrs: Attributes = {};
  addTransportAttributes(attrs, transport);
  return attrs;
}

/** Adds the transport's attributes to `attrs` in place (the hot path: no intermediate object). */
export function addTransportAttributes(attrs: Attributes, transport: unknown): void {
  if (typeof transport !== 'object' || transport === null) return;
  // Class and URL do not change for a transport; only the session id may appear later.
  let fixed = staticTransportAttributes.get(transport);
  if (fixed === undefined) {
    fixed = fixedTransportAttributes(transport);
    staticTransportAttributes.set(transport, fixed);
  }
  for (const key in fixed) attrs[key] = fixed[key];
  const sessionId = ownString(transport, 'sessionId') ?? getterString(transport, 'sessionId');
  if (sessionId !== undefined) attrs[ATTR_MCP_SESSION_ID] = sessionId;
}

function fixedTransportAttributes(transport: object): Attributes {
  const attrs: Attributes = {};
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
  const url = ownValue(transport, '_url');
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
