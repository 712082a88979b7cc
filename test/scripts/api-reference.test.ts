// docs/api/ is typedoc's (typedoc.json, `npm run docs:api`): this keeps the committed pages equal
// to a fresh run, and the run's pages equal to the code entries of every package's `exports`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, manifestOf, workspacePackages } from '../../scripts/workspace.mjs';

const API = join(ROOT, 'docs/api');
const TYPEDOC = join(
  dirname(createRequire(import.meta.url).resolve('typedoc/package.json')),
  'bin/typedoc',
);

/** A code entry of a package's `exports`: what a user imports, and its source in `src/`. */
interface CodeEntry {
  package: string;
  importPath: string;
  /** The source of a built entry (`./dist/esm/x.d.ts` is `src/x.ts`); undefined if hand-written. */
  source: string | undefined;
  types: string;
}

/** Every entry of `exports` with types, in each package's order (JSON data has none). */
function codeEntries(): CodeEntry[] {
  return workspacePackages().flatMap(({ dir }) => {
    const pkg = manifestOf(join(ROOT, dir)) as { name: string; exports?: Record<string, unknown> };
    return Object.entries(pkg.exports ?? {}).flatMap(([subpath, target]) => {
      const types = (target as { import?: { types?: unknown } }).import?.types;
      if (typeof types !== 'string') return [];
      const built = /^\.\/dist\/esm\/(.+)\.d\.ts$/.exec(types);
      return [
        {
          package: pkg.name,
          importPath: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`,
          source: built === null ? undefined : posix.join(dir, 'src', `${built[1]}.ts`),
          types: posix.join(dir, types),
        },
      ];
    });
  });
}

/** An entry's page: its import path without the scope (`excludeScopesInPaths`). */
const pageOf = (importPath: string): string => `${importPath.replace(/^@[^/]+\//, '')}.md`;

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => f.split('\\').join('/'))
    .sort();
}

describe('docs/api (the API reference, from typedoc)', () => {
  let out = '';
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'omcp-api-'));
    await promisify(execFile)(process.execPath, [TYPEDOC, '--out', out, '--logLevel', 'Error'], {
      cwd: ROOT,
    });
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is what typedoc writes now (`npm run docs:api` rewrites it)', () => {
    const written = filesUnder(out);
    expect(filesUnder(API), 'files in docs/api/').toEqual(written);
    for (const file of written)
      expect(readFileSync(join(API, file), 'utf8'), `docs/api/${file} is out of date`).toBe(
        readFileSync(join(out, file), 'utf8'),
      );
  });

  it("has one page per code entry of every package's exports, titled by its import path", () => {
    const entries = codeEntries();
    const built = entries.filter((e) => e.source !== undefined);
    const { entryPoints } = JSON.parse(readFileSync(join(ROOT, 'typedoc.json'), 'utf8')) as {
      entryPoints: string[];
    };
    expect(entryPoints, 'typedoc.json entryPoints').toEqual(built.map((e) => e.source));
    expect(filesUnder(out)).toEqual(
      ['README.md', ...built.map((e) => pageOf(e.importPath))].sort(),
    );
    const index = readFileSync(join(out, 'README.md'), 'utf8');
    for (const { importPath } of built) {
      const page = readFileSync(join(out, pageOf(importPath)), 'utf8');
      expect(page, pageOf(importPath)).toContain(`\n# ${importPath}\n`);
      expect(index).toContain(`| [${importPath}](${pageOf(importPath)}) |`);
    }
    expect(built.map((e) => e.importPath)).toContain('@omcp/tool-failure/wire');
  });

  it('names in its index the entries and the packages that get no page', () => {
    const entries = codeEntries();
    const index = readFileSync(join(out, 'README.md'), 'utf8');
    // A hand-written entry (the zero-code `register`) is imported for its effect: no names.
    const bare = entries.filter((e) => e.source === undefined);
    expect(bare.map((e) => e.importPath)).toEqual(['@omcp/instrumentation-mcp/register']);
    for (const e of bare) {
      const code = readFileSync(join(ROOT, e.types), 'utf8')
        .replace(/^\s*\/\/.*$/gm, '')
        .trim();
      expect(code, e.types).toBe('export {};');
      expect(index).toContain(`\`${e.importPath}\``);
    }
    const withoutEntry = workspacePackages().filter(
      (p) => !entries.some((e) => e.package === p.name),
    );
    expect(withoutEntry.map((p) => p.name)).toEqual(['@omcp/mcp-failures']);
    for (const p of withoutEntry) expect(index).toContain(`\`${p.name}\``);
  });
});
