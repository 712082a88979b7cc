/** A code entry of package.json `exports` and the page it gets. */
export interface ApiEntry {
  /** The key in `exports` (`.`, `./retry`, ...). */
  subpath: string;
  /** What a user imports (`@omcp/instrumentation-mcp/retry`). */
  importPath: string;
  /** The page's file name in docs/api/ (`retry.md`). */
  page: string;
  /** The source of the entry's types, relative to the package root (`src/retry/index.ts`). */
  file: string;
}

/** The code entries of package.json `exports` under `root` (JSON files get no page). */
export function apiEntries(root?: string): ApiEntry[];

/** The first sentence of a doc comment, on one line; `e.g.` and `i.e.` end none. */
export function firstSentence(text: string): string;

/** The generated reference: Markdown by file name, and the names each entry's page lists. */
export function apiReference(root?: string): {
  pages: Map<string, string>;
  names: Map<string, string[]>;
};

/** Writes the reference into `dir`, removing the `.md` files there it no longer has. */
export function writeApiReference(dir: string, root?: string): string[];
