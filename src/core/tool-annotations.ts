import { isRecord, ownString, ownValue } from './safe.js';

/** Tool annotations as the MCP schema defines them; all are untrusted hints. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

const caches = new WeakMap<object, Map<string, ToolAnnotations | undefined>>();

/** The tools of one `tools/list` page with their annotations (a copy), read without running accessors. */
export function toolsOfPage(
  result: unknown,
): Array<[name: string, annotations: ToolAnnotations | undefined]> {
  const tools = ownValue(result, 'tools');
  if (!Array.isArray(tools)) return [];
  const out: Array<[string, ToolAnnotations | undefined]> = [];
  for (const tool of tools as unknown[]) {
    const name = ownString(tool, 'name');
    if (name === undefined) continue;
    const annotations = ownValue(tool, 'annotations');
    out.push([name, isRecord(annotations) ? { ...annotations } : undefined]);
  }
  return out;
}

/** Stores the annotations of every tool in one `tools/list` page, for `client`. */
export function rememberToolList(client: object, result: unknown): void {
  const tools = toolsOfPage(result);
  if (tools.length === 0) return;
  let cache = caches.get(client);
  if (cache === undefined) {
    cache = new Map();
    caches.set(client, cache);
  }
  for (const [name, annotations] of tools) cache.set(name, annotations);
}

/**
 * The annotations of `tool` as last listed by `client` (any page of `tools/list`), or
 * `undefined` when the tool was never listed or had none. Undefined means "not known to
 * be idempotent": the spec's default for `idempotentHint` is false.
 */
export function getToolAnnotations(client: object, tool: string): ToolAnnotations | undefined {
  return caches.get(client)?.get(tool);
}

/** Whether `client` has listed `tool` at all. */
export function hasListedTool(client: object, tool: string): boolean {
  return caches.get(client)?.has(tool) ?? false;
}

/**
 * Lists every page of the server's tools through `client.listTools`, filling the cache
 * (the instrumented request path records each page). Returns the number of tools seen.
 */
export async function refreshToolAnnotations(client: {
  listTools: (params?: { cursor?: string }) => Promise<{ tools: unknown[]; nextCursor?: string }>;
}): Promise<number> {
  let cursor: string | undefined;
  let count = 0;
  const seen = new Set<string>();
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    rememberToolList(client, page);
    count += page.tools.length;
    cursor =
      typeof page.nextCursor === 'string' && page.nextCursor.length > 0
        ? page.nextCursor
        : undefined;
    if (cursor !== undefined && seen.has(cursor)) break;
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return count;
}
