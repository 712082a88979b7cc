// The packages of this workspace, read from the manifests: the root, then each folder its
// `workspaces` lists, with the folders of their own sources (from each tsconfig.json `include`)
// and their executables. The one reading of the layout for the build's helpers, the API
// reference, the tests and the benches.
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The package.json of the package in `dir`. */
export const manifestOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/**
 * The packages of the workspace at `root`: `{ dir, name, sources }`, the root first, where
 * `sources` are the folders (relative to `root`, each ending in `/`) that hold the package's own
 * source files. The root's is src/ (a file there is the root's unless a workspace package's folder
 * holds it: `homeOf`); a workspace package's are the folders of the `include` of its
 * tsconfig.json (each a folder's `**\/*.ts`).
 */
export function workspacePackages(root = ROOT) {
  const top = manifestOf(root);
  const members = (top.workspaces ?? []).map((folder) => {
    const dir = join(root, folder);
    const config = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
    const sources = (config.include ?? []).map((include) => {
      if (typeof include !== 'string' || !include.endsWith('/**/*.ts'))
        throw new Error(`workspace: ${folder}/tsconfig.json must include folders' **/*.ts only`);
      return `${relative(root, resolve(dir, include.slice(0, -'**/*.ts'.length)))}/`;
    });
    return { dir: folder, name: manifestOf(dir).name, sources };
  });
  return [{ dir: '.', name: top.name, sources: ['src/'] }, ...members];
}

/**
 * The workspace packages the package in `dir` depends on (its `dependencies` that a folder of the
 * root's `workspaces` at `root` holds), with their own such dependencies after them, each once:
 * `{ name, dir }` with `dir` absolute. What an install of `dir`'s package brings of the workspace.
 */
export function workspaceDependencies(dir = ROOT, root = ROOT) {
  const folders = (manifestOf(root).workspaces ?? []).map((w) => join(root, w));
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
  const within = (p) => p.sources.some((folder) => file.startsWith(folder));
  return packages.slice(1).find(within) ?? (within(packages[0]) ? packages[0] : undefined);
}

/**
 * The absolute path of executable `bin` as its home package in this checkout declares it (the
 * workspace package whose `bin` names it; the root's executables of the same names are the
 * deprecated ones that run these).
 */
export function binPath(bin, root = ROOT) {
  for (const { dir } of workspacePackages(root).slice(1)) {
    const target = manifestOf(join(root, dir)).bin?.[bin];
    if (target !== undefined) return join(root, dir, target);
  }
  throw new Error(`workspace: no package of ${root} has the executable ${bin}`);
}

/**
 * Links `<dir>/node_modules/<name>` (the name of `dir`'s package unless given) to `dir`, unless something is there (a link,
 * even a dangling one, included): where the packages that run on the root (the proxy, the kit)
 * look for it by walking up, as an install places it beside them. npm links the workspace
 * packages, not the root; the build links this repository, and a copy of the package is linked
 * to itself.
 */
export function linkUnderOwnName(dir, name = manifestOf(dir).name) {
  const link = join(dir, 'node_modules', name);
  let present = existsSync(link);
  try {
    present ||= lstatSync(link).isSymbolicLink();
  } catch {
    // Nothing there.
  }
  if (present) return;
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), dir), link, 'dir');
}
