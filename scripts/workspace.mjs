// The packages of this workspace, read from the manifests: the root, then each other folder its
// `workspaces` lists, each with its own `src/`. The one reading of the layout for the API
// reference, the tests and the benches.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The package.json of the package in `dir`. */
export const manifestOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/**
 * The packages of the workspace at `root`: `{ dir, name, sources }`, the root first, where `dir`
 * is the package's folder relative to `root` and `sources` its source folder (ending in `/`).
 */
export function workspacePackages(root = ROOT) {
  const top = manifestOf(root);
  const members = (top.workspaces ?? [])
    .filter((folder) => folder !== '.')
    .map((folder) => ({
      dir: folder,
      name: manifestOf(join(root, folder)).name,
      sources: [`${folder}/src/`],
    }));
  return [{ dir: '.', name: top.name, sources: ['src/'] }, ...members];
}

/**
 * The workspace packages the package in `dir` depends on (its `dependencies` that a folder of the
 * root's `workspaces` at `root` holds), with their own such dependencies after them, each once:
 * `{ name, dir }` with `dir` absolute. What an install of `dir`'s package brings of the workspace.
 */
export function workspaceDependencies(dir = ROOT, root = ROOT) {
  const folders = (manifestOf(root).workspaces ?? ['.']).map((w) => join(root, w));
  const byName = new Map(folders.map((folder) => [manifestOf(folder).name, folder]));
  const found = new Map();
  const visit = (from) => {
    for (const name of Object.keys(manifestOf(from).dependencies ?? {})) {
      const folder = byName.get(name);
      if (folder === undefined || found.has(name)) continue;
      found.set(name, folder);
      visit(folder);
    }
  };
  visit(dir);
  return [...found].map(([name, folder]) => ({ name, dir: folder }));
}

/** The package (of `workspacePackages`) whose own sources hold `file` (relative to the root). */
export function homeOf(packages, file) {
  return packages.find((p) => p.sources.some((folder) => file.startsWith(folder)));
}

/** The absolute path of executable `bin` as the workspace package that declares it has it. */
export function binPath(bin, root = ROOT) {
  for (const { dir } of workspacePackages(root)) {
    const target = manifestOf(join(root, dir)).bin?.[bin];
    if (target !== undefined) return join(root, dir, target);
  }
  throw new Error(`workspace: no package of ${root} has the executable ${bin}`);
}
