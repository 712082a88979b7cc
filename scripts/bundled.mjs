// The bundled dependencies of a checkout (package.json `bundleDependencies`: the workspace
// packages the root tarball carries), copied as npm pack ships them, each one's package.json and
// `files`, into `<into>/node_modules/<name>`. For the tests and benches that place a copy of the
// package somewhere instead of installing its tarball, so the copy resolves its own.
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { ROOT, manifestOf } from './workspace.mjs';

/**
 * Copies every bundled dependency of the checkout at `from` (this repository by default; a
 * commit's export for `bench:compare`) into `into`/node_modules, from the workspace folder of
 * that name; returns the names (none for a checkout that bundles nothing). The packages that run
 * on the root package (the proxy, the kit) find it by walking up from their folder in an install;
 * here `into` stands for the root, so its name is linked to `into` where they look.
 */
export function copyBundled(into, from = ROOT) {
  const manifest = manifestOf(from);
  const names = manifest.bundleDependencies ?? [];
  const folders = (manifest.workspaces ?? []).map((w) => join(from, w));
  for (const name of names) {
    const source = folders.find((dir) => manifestOf(dir).name === name);
    if (source === undefined) throw new Error(`${name} is bundled, but no workspace is named so`);
    const target = join(into, 'node_modules', name);
    for (const entry of ['package.json', ...(manifestOf(source).files ?? [])])
      if (existsSync(join(source, entry)))
        cpSync(join(source, entry), join(target, entry), { recursive: true });
  }
  const self = join(into, 'node_modules', manifest.name);
  if (names.length > 0 && !existsSync(self)) {
    mkdirSync(dirname(self), { recursive: true });
    symlinkSync(relative(dirname(self), into), self, 'dir');
  }
  return names;
}

/**
 * A copy of what the root package of the checkout at `from` ships (package.json and its `files`,
 * no node_modules folder) in `into`, with its bundled dependencies, as an install places it.
 */
export function copyPackage(into, from = ROOT) {
  for (const entry of ['package.json', ...(manifestOf(from).files ?? [])]) {
    if (!existsSync(join(from, entry))) continue;
    cpSync(join(from, entry), join(into, entry), {
      recursive: true,
      filter: (src) => basename(src) !== 'node_modules',
    });
  }
  copyBundled(into, from);
  return into;
}
