/**
 * npm 11 skips dependencies' install scripts unless the project's `allowScripts` allows them,
 * and ends every install with a list of those it skipped. docs/supported-versions.md ("Which
 * versions pair, and what an install brings") explains the one this package brings (protobufjs's
 * postinstall) and why skipping it changes nothing; these tests hold it to that: the list is what
 * that page names, and the script writes nothing.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../observability/helpers.js';

interface LockEntry {
  version?: string;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Where Node (and npm) finds `name` from the package at `from`: nearest node_modules upward. */
function locate(from: string, name: string): string | undefined {
  for (let dir = from; ;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at === -1 ? '' : dir.slice(0, at);
  }
}

/** Every locked package an install of this package brings: its dependencies, optional ones and peers. */
function installedTree(): Set<string> {
  const root = lock.packages['']!;
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as LockEntry;
  const seen = new Set<string>();
  const visit = (from: string, entry: LockEntry): void => {
    const peers = Object.keys(entry.peerDependencies ?? {}).filter(
      (p) => entry.peerDependenciesMeta?.[p]?.optional !== true,
    );
    for (const name of [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...peers,
    ]) {
      const at = locate(from, name);
      if (at === undefined || seen.has(at)) continue;
      seen.add(at);
      visit(at, lock.packages[at]!);
    }
  };
  visit('', {
    dependencies: manifest.dependencies,
    optionalDependencies: manifest.optionalDependencies,
    peerDependencies: manifest.peerDependencies,
    peerDependenciesMeta: manifest.peerDependenciesMeta ?? root.peerDependenciesMeta,
  });
  return seen;
}

/** Every file under `dir` with its size and modification time. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[relative(dir, path)] = `${statSync(path).size} ${statSync(path).mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

describe('install scripts an install of this package brings', () => {
  it("are none (protobufjs postinstall comes with the application's @opentelemetry/sdk-node, as docs/supported-versions.md says)", () => {
    const tree = installedTree();
    expect(tree.size).toBeGreaterThan(5);
    const withScripts = [...tree].filter((at) => lock.packages[at]!.hasInstallScript === true);
    expect(withScripts.map((at) => at.replace(/^.*node_modules\//, ''))).toEqual([]);
    expect(lock.packages['node_modules/protobufjs']?.hasInstallScript).toBe(true);
    expect(readFileSync(join(ROOT, 'docs', 'supported-versions.md'), 'utf8')).toMatch(
      /npm warn install-scripts .*protobufjs@7\.x \(postinstall: node scripts\/postinstall\)/,
    );
  });

  it("protobufjs's postinstall builds and writes nothing, and only ever prints advice", () => {
    const source = join(ROOT, 'node_modules', 'protobufjs');
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
    // Anything else would need reviewing again (and docs/supported-versions.md rewriting).
    expect(manifest.scripts).toMatchObject({ postinstall: 'node scripts/postinstall' });
    expect(Object.keys(manifest.scripts).filter((s) => /install|prepare/.test(s))).toEqual([
      'postinstall',
    ]);

    /** Runs the script as npm would (in the package's folder) in a project laid out like a user's. */
    const postinstall = (layout: (project: string) => void) => {
      const project = tempDir('omcp-postinstall');
      const pkg = join(project, 'node_modules', 'protobufjs');
      mkdirSync(pkg, { recursive: true });
      cpSync(source, pkg, { recursive: true });
      layout(project);
      const before = files(project);
      const run = spawnSync(process.execPath, ['scripts/postinstall'], {
        cwd: pkg,
        encoding: 'utf8',
      });
      return { ...run, before, after: files(project) };
    };
    const declares = JSON.stringify({ name: 'app', dependencies: { protobufjs: '^7.0.0' } });

    // npm's layout, the project declaring protobufjs with a caret: nothing printed or written.
    const plain = postinstall((p) => writeFileSync(join(p, 'package.json'), declares));
    expect(plain).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(plain.after).toEqual(plain.before);

    // Where it does find a declaration (node_modules/package.json): advice, still no file written.
    const advised = postinstall((p) =>
      writeFileSync(join(p, 'node_modules', 'package.json'), declares),
    );
    expect(advised).toMatchObject({ status: 0, stdout: '' });
    expect(advised.stderr).toMatch(
      /^protobufjs WARN postinstall protobufjs@\^7\.0\.0 is configured as a dependency of app\. use protobufjs@~7\.0\.0 instead/,
    );
    expect(advised.after).toEqual(advised.before);
  });
});
