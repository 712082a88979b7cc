/**
 * The published package as the tools users run on it see it: `publint` (what the manifest
 * promises against what the tarball holds) and `@arethetypeswrong/cli` (whether every entry
 * point's types resolve under node10, node16 from CommonJS and from ESM, and bundler resolution),
 * both pinned in test/gates/tools, run on the packed tarball. Prints the tarball's size.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, run, tempDir } from '../observability/helpers.js';
import { pack, type Packed } from './install.js';

const BIN = join(ROOT, 'test/gates/tools/node_modules/.bin');
const MiB = 2 ** 20;
/** What the tarball may weigh before a change that grows it needs a look (today about 0.65 MiB). */
const SIZE_LIMIT = 1.5 * MiB;
let packed: Packed;
let dataModel: Packed;
let proxy: Packed;
let kit: Packed;

beforeAll(() => {
  if (!existsSync(join(BIN, 'attw')) || !existsSync(join(BIN, 'publint')))
    throw new Error(
      'publint and attw are not installed: run node scripts/install-fixtures.mjs (npm test does)',
    );
  packed = pack();
  dataModel = pack(join(ROOT, 'packages/tool-failure'));
  proxy = pack(join(ROOT, 'packages/proxy'));
  kit = pack(join(ROOT, 'packages/mcp-failures'));
}, 400_000);

/** attw's report on a tarball: its problems and the entry points it analysed. */
async function attw(tarball: string) {
  const result = await run(join(BIN, 'attw'), [tarball, '--format', 'json'], {
    timeoutMs: 240_000,
  });
  const report = JSON.parse(result.stdout) as {
    analysis: { entrypoints: Record<string, unknown> };
    problems: Record<string, unknown>;
  };
  return { code: result.code, report };
}

/** publint on the unpacked tarball, suggestions counted as failures. */
async function publint(tarball: string) {
  const dir = tempDir('omcp-publint');
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
  return run(
    join(BIN, 'publint'),
    [join(dir, 'package'), '--pack', 'false', '--level', 'suggestion', '--strict'],
    { timeoutMs: 60_000 },
  );
}

const sizeLine = (p: Packed) =>
  `tarball ${p.tarball.split('/').at(-1)}: ${(p.size / MiB).toFixed(2)} MiB packed, ` +
  `${(p.unpackedSize / MiB).toFixed(2)} MiB unpacked, ${p.files.length} files`;

describe('the packed tarball', () => {
  it('passes @arethetypeswrong/cli with the strict profile: every entry point typed in every resolution', async () => {
    const { code, report } = await attw(packed.tarball);
    expect(report.problems, JSON.stringify(report.problems).slice(0, 4000)).toEqual({});
    expect(code).toBe(0);
    // Every subpath of "exports" was analysed: none hides behind a pattern attw cannot expand.
    expect(Object.keys(report.analysis.entrypoints)).toEqual(
      expect.arrayContaining([
        '.',
        './retry',
        './semconv',
        './relay',
        './workers',
        './executable',
        './register',
        './frameworks/ai-sdk',
        './frameworks/langchain',
        './frameworks/openai-agents',
        './frameworks/mastra',
      ]),
    );
  }, 300_000);

  it('passes publint, with suggestions counted as failures', async () => {
    const result = await publint(packed.tarball);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('All good!');
  }, 90_000);

  it('prints its size as published, within its limit', () => {
    console.log(sizeLine(packed));
    expect(packed.size).toBeGreaterThan(0);
    expect(packed.size).toBeLessThan(SIZE_LIMIT);
  });
});

describe('the packed data model (packages/tool-failure, @omcp/tool-failure)', () => {
  it('passes @arethetypeswrong/cli with the strict profile', async () => {
    const { code, report } = await attw(dataModel.tarball);
    expect(report.problems, JSON.stringify(report.problems).slice(0, 4000)).toEqual({});
    expect(code).toBe(0);
    expect(Object.keys(report.analysis.entrypoints)).toContain('.');
  }, 300_000);

  it('passes publint, with suggestions counted as failures', async () => {
    const result = await publint(dataModel.tarball);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('All good!');
  }, 90_000);

  it('ships its build, schema, README and licence only, and prints its size', () => {
    console.log(sizeLine(dataModel));
    expect(dataModel.files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'schema/tool-failure.schema.json',
        'dist/esm/index.js',
        'dist/cjs/index.js',
        'dist/esm/index.d.ts',
        'dist/esm/wire/index.js',
        'dist/cjs/wire/index.js',
      ]),
    );
    // Its own build only (its folder and ./wire), and no build information.
    for (const f of dataModel.files.filter((x) => x.startsWith('dist/')))
      expect(f, f).toMatch(/^dist\/(esm|cjs)\/(wire\/)?[\w.-]+$/);
    expect(dataModel.size).toBeLessThan(packed.size / 4);
  });
});

describe.each([
  {
    name: 'the packed proxy (packages/proxy, @omcp/mcp-failure-proxy)',
    get: () => proxy,
    entries: ['.'],
    files: ['dist/esm/index.js', 'dist/cjs/index.js', 'dist/esm/cli.js'],
    own: /^dist\/(esm|cjs)\/[\w.-]+$/,
  },
  {
    name: 'the packed kit (packages/mcp-failures, @omcp/mcp-failures)',
    get: () => kit,
    entries: [],
    files: [
      'dist/esm/cli/mcp-failures.js',
      'conformance/intermediary-cases.json',
      'conformance/vectors.schema.json',
    ],
    own: /^dist\/esm\/(cli|check|lookup)\/[\w.-]+$/,
  },
])('$name', ({ get, entries, files, own }) => {
  it('passes @arethetypeswrong/cli (strict) on every library entry, or has none', async () => {
    if (entries.length === 0) {
      // No library entry (executables and data only): nothing for attw to resolve.
      const manifest = JSON.parse(
        execFileSync('tar', ['xzOf', get().tarball, 'package/package.json'], { encoding: 'utf8' }),
      ) as { exports: Record<string, unknown>; main?: string; types?: string };
      expect(Object.keys(manifest.exports).every((k) => k.endsWith('.json'))).toBe(true);
      expect(manifest.main ?? manifest.types).toBeUndefined();
      return;
    }
    const { code, report } = await attw(get().tarball);
    expect(report.problems, JSON.stringify(report.problems).slice(0, 4000)).toEqual({});
    expect(code).toBe(0);
    expect(Object.keys(report.analysis.entrypoints)).toEqual(expect.arrayContaining(entries));
  }, 300_000);

  it('passes publint, with suggestions counted as failures', async () => {
    const result = await publint(get().tarball);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('All good!');
  }, 90_000);

  it('ships its build, README and licence only (no source of another package), and prints its size', () => {
    const p = get();
    console.log(sizeLine(p));
    expect(p.files).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'package.json', ...files]),
    );
    for (const f of p.files.filter((x) => x.startsWith('dist/'))) expect(f, f).toMatch(own);
    expect(p.size).toBeLessThan(packed.size / 4);
  });
});
