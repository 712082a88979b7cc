import { toolsOfPage } from '../core/tool-annotations.js';
import type { ToolRetryAnnotations } from './types.js';

/** One page of `tools/list`, as loose as both SDK lines return it. */
export interface ToolListPage {
  tools: ReadonlyArray<{ name: string; annotations?: unknown }>;
  nextCursor?: string;
}

/** Stops a server that keeps returning cursors from holding the retry policy forever. */
const MAX_PAGES = 100;

/**
 * Tool annotations by name, filled from every `tools/list` page seen through the wrapper
 * and, when a tool is not known yet, from one walk over all pages (following `nextCursor`).
 * A tool still unknown after that walk counts as not idempotent.
 */
export class ToolAnnotationCache {
  private readonly byName = new Map<string, ToolRetryAnnotations | undefined>();
  private walk: Promise<void> | undefined;
  private walked = false;

  constructor(private readonly listPage: (cursor: string | undefined) => Promise<ToolListPage>) {}

  /** Remembers the annotations of the tools on one page. Never throws. */
  remember(page: unknown): void {
    for (const [name, annotations] of toolsOfPage(page))
      this.byName.set(name, annotationsOf(annotations));
  }

  /** The annotations of `name`, walking `tools/list` once if it has not been seen. */
  async get(name: string): Promise<ToolRetryAnnotations | undefined> {
    if (this.byName.has(name)) return this.byName.get(name);
    if (!this.walked) {
      this.walk ??= this.walkAll().finally(() => {
        this.walk = undefined;
      });
      try {
        await this.walk;
      } catch {
        // Unknown annotations mean "not idempotent": the call goes on without a retry.
      }
    }
    return this.byName.get(name);
  }

  private async walkAll(): Promise<void> {
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.listPage(cursor);
      this.remember(result);
      const next = (result as { nextCursor?: unknown }).nextCursor;
      if (typeof next !== 'string' || next.length === 0 || seen.has(next)) break;
      seen.add(next);
      cursor = next;
    }
    this.walked = true;
  }
}

/** A copy of the hints the policy reads; anything else about the value is ignored. */
export function annotationsOf(value: unknown): ToolRetryAnnotations | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const out: ToolRetryAnnotations = {};
  const { idempotentHint, readOnlyHint } = value as Record<string, unknown>;
  if (typeof idempotentHint === 'boolean') out.idempotentHint = idempotentHint;
  if (typeof readOnlyHint === 'boolean') out.readOnlyHint = readOnlyHint;
  return out;
}
