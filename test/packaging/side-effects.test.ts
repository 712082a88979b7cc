/**
 * `sideEffects` in package.json tells bundlers which files they may drop when nothing is used
 * from them. The zero-code entry (`./register`) exports nothing and works only by running, so it
 * must be listed; the rest of the package stays side-effect free, so an unused import is dropped.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'rolldown';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../observability/helpers.js';

const NAME = '@omcp/instrumentation-mcp';
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  sideEffects: unknown;
  exports: Record<string, unknown>;
};

/** Every file an `exports` entry points at, without the leading `./`. */
function targets(entry: unknown): string[] {
  if (typeof entry === 'string') return [entry.replace(/^\.\//, '')];
  if (entry !== null && typeof entry === 'object')
    return Object.entries(entry).flatMap(([condition, target]) =>
      // Type declarations are read by the compiler, never run: side effects are not theirs.
      condition === 'types' ? [] : targets(target),
    );
  return [];
}

/** A `sideEffects` glob as bundlers read it: relative to the package, `*` within one folder. */
function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/^\.\//, '')
    .split(/(\*\*\/?|\*|\?)/)
    .map((part) =>
      part === '**' || part === '**/'
        ? '(?:.*/)?'
        : part === '*'
          ? '[^/]*'
          : part === '?'
            ? '[^/]'
            : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  // A pattern without a slash matches the file name in any folder, as webpack reads it.
  return new RegExp(glob.includes('/') ? `^${body}$` : `(?:^|/)${body}$`);
}

const covered = (file: string): boolean =>
  Array.isArray(manifest.sideEffects) &&
  manifest.sideEffects.some((glob) => typeof glob === 'string' && globToRegExp(glob).test(file));

/** Bundles `code` as an app of a project that has this package installed (linked). */
async function bundle(code: string): Promise<string> {
  const dir = tempDir('omcp-bundle');
  mkdirSync(join(dir, 'node_modules', '@omcp'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', NAME), 'dir');
  writeFileSync(join(dir, 'app.mjs'), code);
  const { output } = await build({
    input: join(dir, 'app.mjs'),
    cwd: dir,
    platform: 'node',
    write: false,
    logLevel: 'silent',
    // Only this package is bundled: its dependencies are not what is being tested.
    external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith(NAME),
  });
  return output.map((chunk) => ('code' in chunk ? chunk.code : '')).join('\n');
}

describe('sideEffects', () => {
  it('lists the zero-code entry files, and not the library entry', () => {
    expect(Array.isArray(manifest.sideEffects)).toBe(true);
    const register = targets(manifest.exports['./register']);
    expect(register).toEqual(expect.arrayContaining(['register/index.mjs', 'register/index.cjs']));
    for (const file of register) expect(covered(file), file).toBe(true);
    const library = targets(manifest.exports['.']);
    expect(library.length).toBeGreaterThan(0);
    for (const file of library) expect(covered(file), file).toBe(false);
  });

  it('the glob reading matches what bundlers match', () => {
    expect(globToRegExp('./register/*').test('register/index.mjs')).toBe(true);
    expect(globToRegExp('./register/*').test('register/sub/index.mjs')).toBe(false);
    expect(globToRegExp('./dist/**/start.js').test('dist/esm/register/start.js')).toBe(true);
    expect(globToRegExp('*.css').test('dist/a.css')).toBe(true);
    expect(globToRegExp('./register/index.mjs').test('register/index.cjs')).toBe(false);
  });

  it('a bundler keeps `import "…/register"` and still drops an unused import of the library', async () => {
    const kept = await bundle(`import '${NAME}/register';\n`);
    expect(kept).toContain('startTelemetry');
    const dropped = await bundle(`import '${NAME}';\n`);
    expect(dropped).not.toContain('McpInstrumentation');
  }, 60_000);
});
