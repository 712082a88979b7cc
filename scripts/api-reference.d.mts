import type { WorkspacePackage } from './workspace.mjs';

/** A code entry of a package's `exports` and the page it gets. */
export interface ApiEntry {
  /** The name of the package whose `exports` list it. */
  package: string;
  /** The key in `exports` (`.`, `./retry`, ...). */
  subpath: string;
  /** What a user imports (`@omcp/instrumentation-mcp/retry`). */
  importPath: string;
  /** The page's file name in docs/api/ (`retry.md`, `omcp-tool-failure.md`). */
  page: string;
  /** The source of the entry's types, relative to the repository root (`src/retry/index.ts`). */
  file: string;
}

/** One name an entry exports, with the file that defines it and that file's package. */
export interface ExportedName {
  name: string;
  kinds: string[];
  typeOnly: boolean;
  definedIn: string | undefined;
  summary: string;
  /** The package whose own sources hold `definedIn`. */
  home: string | undefined;
}

/** The code entries of every workspace package's `exports` (JSON files get no page). */
export function apiEntries(root?: string): ApiEntry[];

/** The package an entry re-exports whole (`export * from '<package>'`, its only statement). */
export function reexportedPackage(root: string, file: string): string | undefined;

/** The first sentence of a doc comment, on one line; `e.g.` and `i.e.` end none. */
export function firstSentence(text: string): string;

/** The generated reference: Markdown by file name, the names each page lists, and each entry's names. */
export function apiReference(root?: string): {
  pages: Map<string, string>;
  names: Map<string, string[]>;
  exported: Array<{ entry: ApiEntry & { reexports: string | undefined }; names: ExportedName[] }>;
  packages: WorkspacePackage[];
};

/** Writes the reference into `dir`, removing the `.md` files there it no longer has. */
export function writeApiReference(dir: string, root?: string): string[];
