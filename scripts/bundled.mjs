// The bundled dependencies of a checkout (package.json `bundleDependencies`: the workspace
// packages the root tarball carries), copied as npm pack ships them, each one's package.json and
// `files`, into `<into>/node_modules/<name>`. For the tests and benches that place a copy of the
// package somewhere instead of installing its tarball, so the copy resolves its own.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const manifestOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/**
 * Copies every bundled dependency of the checkout at `from` (this repository by default; a
 * commit's export for `bench:compare`) into `into`/node_modules, from the workspace folder of
 * that name; returns the names (none for a checkout that bundles nothing).
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
  return names;
}
