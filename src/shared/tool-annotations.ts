import { isRecord, ownString, ownValue } from '@omcp/tool-failure/wire';

/** Tool annotations as the MCP schema defines them; all are untrusted hints. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** The hints a retry decision reads; anything else about the annotations is ignored. */
export type RetryHints = Pick<ToolAnnotations, 'idempotentHint' | 'readOnlyHint'>;

/** One page of `tools/list` as this module asks for it. */
export type ListToolsPage = (cursor: string | undefined) => Promise<unknown>;

/** Stops a server that keeps returning cursors from holding a walk forever. */
export const MAX_TOOL_LIST_PAGES = 100;

/** Per client: tool name to its annotations, from every `tools/list` page seen for it. */
const caches = new WeakMap<object, Map<string, ToolAnnotations | undefined>>();
/** Per client: the walk over every page, once it has run (or while it runs). */
const walks = new WeakMap<object, Promise<void>>();

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

/** Whether `client` has listed any tool at all. */
export function hasListedAnyTool(client: object): boolean {
  return (caches.get(client)?.size ?? 0) > 0;
}

/** Whether `client` has listed `tool` at all. */
export function hasListedTool(client: object, tool: string): boolean {
  return caches.get(client)?.has(tool) ?? false;
}

/**
 * The one walk over the pages of `tools/list`: each page through `listPage`, handed to `onPage`,
 * following `nextCursor`, at most `MAX_TOOL_LIST_PAGES` (100) pages, stopping at a repeated or
 * empty cursor. Returns the number of tools seen.
 */
export async function walkToolListPages(
  listPage: ListToolsPage,
  onPage: (result: unknown) => void,
): Promise<number> {
  let cursor: string | undefined;
  let count = 0;
  const seen = new Set<string>();
  for (let page = 0; page < MAX_TOOL_LIST_PAGES; page++) {
    const result = await listPage(cursor);
    onPage(result);
    count += toolsOfPage(result).length;
    const next = ownValue(result, 'nextCursor');
    if (typeof next !== 'string' || next.length === 0 || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return count;
}

/**
 * Walks every page of `tools/list` through `listPage` ({@link walkToolListPages}), remembering
 * each page for `client`. Returns the number of tools seen.
 */
export function walkToolList(client: object, listPage: ListToolsPage): Promise<number> {
  return walkToolListPages(listPage, (result) => rememberToolList(client, result));
}

/**
 * The retry hints of `tool` for `client`: from what was listed for it already, or else from one
 * walk over all pages (once per client; a failed walk may be tried again by a later call).
 * `undefined` (not known to be idempotent) when the tool is still unknown.
 */
export async function retryHintsOf(
  client: object,
  tool: string,
  listPage: ListToolsPage,
): Promise<RetryHints | undefined> {
  if (!hasListedTool(client, tool)) {
    let walk = walks.get(client);
    if (walk === undefined) {
      walk = walkToolList(client, listPage).then(
        () => undefined,
        () => {
          walks.delete(client);
        },
      );
      walks.set(client, walk);
    }
    await walk;
  }
  return hintsOf(getToolAnnotations(client, tool));
}

/** A copy of the retry hints of `value`, read without running accessors. */
export function hintsOf(value: unknown): RetryHints | undefined {
  if (!isRecord(value)) return undefined;
  const out: RetryHints = {};
  const idempotentHint = ownValue(value, 'idempotentHint');
  const readOnlyHint = ownValue(value, 'readOnlyHint');
  if (typeof idempotentHint === 'boolean') out.idempotentHint = idempotentHint;
  if (typeof readOnlyHint === 'boolean') out.readOnlyHint = readOnlyHint;
  return out;
}

/**
 * Lists every page of the server's tools through `client.listTools`, filling the cache
 * (the instrumented request path records each page too). Returns the number of tools seen.
 */
export function refreshToolAnnotations(client: {
  listTools: (params?: { cursor?: string }) => Promise<unknown>;
}): Promise<number> {
  return walkToolList(client, (cursor) =>
    client.listTools(cursor === undefined ? undefined : { cursor }),
  );
}
