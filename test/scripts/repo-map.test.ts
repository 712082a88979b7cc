// The map of the repository is checked against the repository: docs/architecture.md names every
// source file and no file that is gone, comments cite only paths that exist, and the version the
// telemetry reports is the one package.json publishes.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  KIT_PACKAGE_NAME,
  KIT_PACKAGE_VERSION,
} from '../../packages/mcp-failures/src/check/version.js';
import { PROXY_PACKAGE_NAME, PROXY_PACKAGE_VERSION } from '../../packages/proxy/src/version.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../src/version.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/** Every `.ts` file under `dir`, as a path relative to src/ with `/` separators. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path).split('\\').join('/')] : [];
  });
}

/** The rows of the table under the heading that starts with `heading`, as arrays of cells. */
function tableRows(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`docs/architecture.md has no "## ${heading}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .slice(1)
    .map((line) => line.split(/(?<!\\)\|/).slice(1, -1));
}

const backticked = (text: string): string[] =>
  [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/**
 * What the module table says of src/: each row's first cell names folders (`client/`) or files
 * (`semconv.ts`); the files a folder row names are the `.ts` names in it, each within one of the
 * row's folders unless it is written with its folder (`tool-failure/read.ts`).
 */
function namedInMap(markdown: string): { named: Set<string>; unknown: string[] } {
  const named = new Set<string>();
  const unknown: string[] = [];
  for (const [first = '', ...rest] of tableRows(markdown, 'Modules')) {
    const heads = backticked(first);
    const folders = heads.filter((h) => h.endsWith('/'));
    for (const head of heads.filter((h) => h.endsWith('.ts'))) named.add(head);
    for (const token of backticked(rest.join('|')).flatMap((t) => t.split(/[\s,]+/))) {
      const file = /^([\w-]+\/)*[\w.-]+\.ts$/.exec(token)?.[0];
      if (file === undefined) continue;
      const candidates =
        file.includes('/') || folders.length === 0 ? [file] : folders.map((f) => f + file);
      const hit = candidates.find((c) => existsSync(join(SRC, c)));
      if (hit === undefined) unknown.push(`${file} (row ${heads.join(', ')})`);
      else named.add(hit);
    }
  }
  return { named, unknown };
}

describe('the repository map', () => {
  const markdown = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

  it('docs/architecture.md names every source file in src/', () => {
    const { named } = namedInMap(markdown);
    const missing = sourceFiles(SRC).filter((file) => !named.has(file));
    expect(missing, 'source files the module table of docs/architecture.md does not name').toEqual(
      [],
    );
  });

  it('docs/architecture.md names no source file that does not exist', () => {
    expect(namedInMap(markdown).unknown).toEqual([]);
    const cited = [...markdown.matchAll(/`((?:src\/)?[\w-]+\/[\w./-]+\.ts)`/g)].map((m) => m[1]);
    const gone = cited.filter(
      // A path from a top-level folder (src/, test/, ...) is the repository's; others are src/'s.
      (p) =>
        p !== undefined &&
        !existsSync(join(/^(src|test|scripts|bench|packages|examples)\//.test(p) ? ROOT : SRC, p)),
    );
    expect(gone).toEqual([]);
  });

  it('comments in src/ cite only paths of this repository that exist', () => {
    const cite =
      /\b(?:src|test|docs|bench|scripts|examples|observability)\/[\w./-]+\.(?:ts|mts|mjs|cjs|md|json|ya?ml)\b/g;
    const gone: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(join(SRC, file), 'utf8');
      for (const [path] of text.matchAll(cite))
        if (!existsSync(join(ROOT, path))) gone.push(`src/${file}: ${path}`);
    }
    expect(gone).toEqual([]);
  });

  it.each([
    { file: 'src/version.ts', dir: '.', name: PACKAGE_NAME, version: PACKAGE_VERSION },
    {
      file: 'packages/proxy/src/version.ts',
      dir: 'packages/proxy',
      name: PROXY_PACKAGE_NAME,
      version: PROXY_PACKAGE_VERSION,
    },
    {
      file: 'packages/mcp-failures/src/check/version.ts',
      dir: 'packages/mcp-failures',
      name: KIT_PACKAGE_NAME,
      version: KIT_PACKAGE_VERSION,
    },
  ])("$file holds the name and version of $dir's package.json", ({ dir, name, version }) => {
    // The root's are the instrumentation scope's; the proxy's and the kit's their MCP identity.
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    expect(name).toBe(pkg.name);
    expect(version).toBe(pkg.version);
  });
});
