// A copy of a workspace package placed somewhere, as an install places it, instead of an install
// of its tarball: for the tests and benches that need a built package in a tree of their own.
// The workspace packages it depends on go beside it in `<into>/node_modules`, each as npm pack
// ships it (its package.json and `files`).
import { cpSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT, manifestOf, workspaceDependencies } from './workspace.mjs';

/** What the package in `from` ships (package.json and its `files`, negations honoured) in `into`. */
function copyShipped(from, into) {
  const files = manifestOf(from).files ?? [];
  const left = files.filter((f) => f.startsWith('!')).map((f) => join(from, f.slice(1)));
  const leftOut = (src) =>
    left.some(
      (l) => src === l || src.startsWith(`${l}/`) || (l.includes('*') && globMatch(l, src)),
    );
  const kept = (src) => basename(src) !== 'node_modules' && !leftOut(src);
  for (const entry of ['package.json', ...files.filter((f) => !f.startsWith('!'))])
    if (existsSync(join(from, entry)))
      cpSync(join(from, entry), join(into, entry), { recursive: true, filter: kept });
}

/** Whether `path` matches `pattern`, whose `*` stands for any run of characters but `/`. */
function globMatch(pattern, path) {
  const source = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${source.join('[^/]*')}$`).test(path);
}

/**
 * Copies every workspace package that the package in `dir` (of the checkout at `root`; the root
 * package of this repository by default) depends on into `into`/node_modules; returns the names.
 */
export function copyWorkspaceDependencies(into, dir = ROOT, root = dir) {
  const found = workspaceDependencies(dir, root);
  for (const { name, dir: from } of found) copyShipped(from, join(into, 'node_modules', name));
  return found.map(({ name }) => name);
}

/**
 * A copy of what the package in `from` ships in `into`, with the workspace packages it depends on
 * beside it; returns `into`. `root` is the checkout `from` belongs to.
 */
export function copyPackage(into, from = ROOT, root = ROOT) {
  copyShipped(from, into);
  copyWorkspaceDependencies(into, from, root);
  return into;
}
