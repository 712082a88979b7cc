// The map of the repository is checked against the repository: each package's README lists every
// source file of its own src/ and no file that is gone, docs/architecture.md draws the packages
// with the dependencies their manifests declare and cites only paths that exist, comments cite
// only paths that exist, and the version the telemetry reports is the one package.json publishes.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  KIT_PACKAGE_NAME,
  KIT_PACKAGE_VERSION,
} from '../../packages/mcp-failures/src/check/version.js';
import { PROXY_PACKAGE_NAME, PROXY_PACKAGE_VERSION } from '../../packages/proxy/src/version.js';
import { ROOT, manifestOf, workspacePackages } from '../../scripts/workspace.mjs';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../src/version.js';

const packages = workspacePackages();

/** Where a package lists its modules: the root's README stays short, so the root's is src/'s. */
const inventoryOf = (dir: string): string => (dir === '.' ? 'src/README.md' : `${dir}/README.md`);

/** Every `.ts` file under `dir`, as a path relative to `base` with `/` separators. */
function sourceFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path, base);
    return entry.name.endsWith('.ts') ? [relative(base, path).split('\\').join('/')] : [];
  });
}

/** The section of `markdown` under `## {heading}`, up to the next `## ` heading. */
function section(markdown: string, heading: string, page: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${page} has no "## ${heading}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The rows of the first table of `text`, as arrays of cells (the header row left out). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .slice(1)
    .map((line) => line.split(/(?<!\\)\|/).slice(1, -1));
}

const backticked = (text: string): string[] =>
  [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/** A path that starts at a top-level folder of the repository, rather than at a package's src/. */
const fromRoot = (path: string): boolean =>
  /^(src|test|scripts|bench|packages|examples|demo|observability)\//.test(path);

/**
 * What a Modules table says of the src/ at `src`: each row's first cell names folders (`client/`)
 * or files (`semconv.ts`); the files a row names are the `.ts` names in it, each within one of the
 * row's folders unless it is written with its folder (`cli/lookup-command.ts`). A path from a
 * top-level folder of the repository (`src/...`, `packages/...`) names that file instead.
 */
function namedInInventory(markdown: string, src: string, page: string) {
  const named = new Set<string>();
  const unknown: string[] = [];
  for (const [first = '', ...rest] of tableRows(section(markdown, 'Modules', page))) {
    const heads = backticked(first);
    const folders = heads.filter((h) => h.endsWith('/'));
    for (const head of heads.filter((h) => h.endsWith('.ts'))) {
      if (existsSync(join(src, head))) named.add(head);
      else unknown.push(`${head} (row ${heads.join(', ')})`);
    }
    for (const token of backticked(rest.join('|')).flatMap((t) => t.split(/[\s,]+/))) {
      const file = /^([\w-]+\/)*[\w.-]+\.ts$/.exec(token)?.[0];
      if (file === undefined) continue;
      if (fromRoot(file)) {
        if (!existsSync(join(ROOT, file))) unknown.push(`${file} (row ${heads.join(', ')})`);
        continue;
      }
      const candidates =
        file.includes('/') || folders.length === 0 ? [file] : folders.map((f) => f + file);
      const hit = candidates.find((c) => existsSync(join(src, c)));
      if (hit === undefined) unknown.push(`${file} (row ${heads.join(', ')})`);
      else named.add(hit);
    }
  }
  return { named, unknown };
}

describe.each(packages.map((p) => ({ ...p, page: inventoryOf(p.dir) })))(
  'the modules of $name ($page)',
  ({ dir, page }) => {
    const src = join(ROOT, dir, 'src');
    const markdown = readFileSync(join(ROOT, page), 'utf8');

    it('name every source file of its src/', () => {
      const { named } = namedInInventory(markdown, src, page);
      const missing = sourceFiles(src).filter((file) => !named.has(file));
      expect(missing, `source files the Modules table of ${page} does not name`).toEqual([]);
    });

    it('name no source file that does not exist', () => {
      expect(namedInInventory(markdown, src, page).unknown).toEqual([]);
    });
  },
);

describe('docs/architecture.md', () => {
  const markdown = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const mermaid = /\n```mermaid\n([\s\S]*?)\n```\n/.exec(markdown)?.[1] ?? '';

  /** The nodes of the picture, by id: the package name each one's label starts with. */
  const nodes = new Map(
    [...mermaid.matchAll(/^\s*(\w+)\["(@omcp\/[\w-]+)[^"]*"\]\s*$/gm)].map((m) => [m[1], m[2]]),
  );
  /** Its arrows, as `from -> to` between package names. */
  const arrows = [...mermaid.matchAll(/^\s*(\w+)\s*-->\s*(\w+)\s*$/gm)].map(
    (m) => `${nodes.get(m[1]!) ?? m[1]} -> ${nodes.get(m[2]!) ?? m[2]}`,
  );

  it('draws the packages as a Mermaid flowchart, one node per package of the workspace', () => {
    expect(mermaid).toMatch(/^flowchart (LR|RL|TB|BT|TD)\b/);
    expect([...nodes.values()].sort()).toEqual(packages.map((p) => p.name).sort());
  });

  it('has one arrow per dependency between the packages that their package.json files declare, and no other', () => {
    const names = new Set(packages.map((p) => p.name));
    const declared = packages.flatMap(({ dir, name }) =>
      Object.keys((manifestOf(join(ROOT, dir)).dependencies ?? {}) as Record<string, string>)
        .filter((dependency) => names.has(dependency))
        .map((dependency) => `${name} -> ${dependency}`),
    );
    expect(declared.length).toBeGreaterThan(0);
    expect([...arrows].sort()).toEqual(declared.sort());
  });

  it('cites only source files that exist', () => {
    const cited = [...markdown.matchAll(/`([\w./-]+\/[\w.-]+\.ts)`/g)].map((m) => m[1] ?? '');
    expect(cited.length).toBeGreaterThan(10);
    expect(cited.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });
});

describe('README.md', () => {
  it('stays short enough to read in five minutes: at most 200 lines, the reference in docs/', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });
});

describe('docs/README.md', () => {
  it('lists every page of docs/, each once', () => {
    const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8');
    const listed = [...index.matchAll(/^\| \[[^\]]+\]\(([^)#]+)\)/gm)].map((m) => m[1] ?? '');
    const pages = readdirSync(join(ROOT, 'docs'), { withFileTypes: true })
      .filter((e) => (e.isDirectory() ? e.name === 'api' : e.name.endsWith('.md')))
      .map((e) => (e.isDirectory() ? `${e.name}/README.md` : e.name))
      .filter((page) => page !== 'README.md');
    expect([...listed].sort()).toEqual(pages.sort());
  });
});

describe('the sources', () => {
  it('cite only paths of this repository that exist, in comments', () => {
    const cite =
      /\b(?:packages\/[\w-]+\/)?(?:src|test|docs|bench|scripts|examples|observability)\/[\w./-]+\.(?:ts|mts|mjs|cjs|md|json|ya?ml)\b/g;
    const gone: string[] = [];
    for (const { dir } of packages) {
      const src = join(ROOT, dir, 'src');
      for (const file of sourceFiles(src)) {
        const path = join(src, file);
        for (const [cited] of readFileSync(path, 'utf8').matchAll(cite))
          if (!existsSync(join(ROOT, cited)) && !existsSync(join(ROOT, dir, cited)))
            gone.push(`${relative(ROOT, path)}: ${cited}`);
      }
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
    const pkg = manifestOf(join(ROOT, dir)) as { name: string; version: string };
    expect(name).toBe(pkg.name);
    expect(version).toBe(pkg.version);
  });
});
