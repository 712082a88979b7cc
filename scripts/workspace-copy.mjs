// A copy of the root package placed somewhere, as an install places it, instead of an install of
// its tarball: for the tests and benches that need the built package in a tree of their own. The
// workspace packages it depends on (`@omcp/tool-failure`, the proxy, the kit) go beside it in
// `<into>/node_modules`, each as npm pack ships it (its package.json and `files`).
import { cpSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT, linkUnderOwnName, manifestOf, workspaceDependencies } from './workspace.mjs';

/**
 * Copies every workspace package the root of the checkout at `from` (this repository by default;
 * a commit's export for `bench:compare`) depends on into `into`/node_modules, from the workspace
 * folder of that name; returns the names (none for a checkout with no such package). The packages
 * that run on the root (the proxy, the kit) find it by walking up from their folder in an
 * install; here `into` stands for the root, so its name is linked to `into` where they look.
 */
export function copyWorkspaceDependencies(into, from = ROOT) {
  const found = workspaceDependencies(from, from);
  for (const { name, dir } of found) {
    const target = join(into, 'node_modules', name);
    for (const entry of ['package.json', ...(manifestOf(dir).files ?? [])])
      if (existsSync(join(dir, entry)))
        cpSync(join(dir, entry), join(target, entry), { recursive: true });
  }
  if (found.length > 0) linkUnderOwnName(into, manifestOf(from).name);
  return found.map(({ name }) => name);
}

/**
 * A copy of what the root package of the checkout at `from` ships (package.json and its `files`,
 * no node_modules folder) in `into`, with the workspace packages it depends on; returns `into`.
 */
export function copyPackage(into, from = ROOT) {
  const files = manifestOf(from).files ?? [];
  // `files` entries that start with `!` leave a path out, as npm pack does.
  const left = files.filter((f) => f.startsWith('!')).map((f) => join(from, f.slice(1)));
  const kept = (src) =>
    basename(src) !== 'node_modules' && !left.some((l) => src === l || src.startsWith(`${l}/`));
  for (const entry of ['package.json', ...files.filter((f) => !f.startsWith('!'))]) {
    if (!existsSync(join(from, entry))) continue;
    cpSync(join(from, entry), join(into, entry), { recursive: true, filter: kept });
  }
  copyWorkspaceDependencies(into, from);
  return into;
}
