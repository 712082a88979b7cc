// The root package's bundled dependencies (package.json `bundleDependencies`: the workspace
// packages its tarball carries), copied as npm pack ships them: each one's package.json and
// `files`, into `<dir>/node_modules/<name>`. For tests that place a copy of the package somewhere
// instead of installing its tarball.
import { cpSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Manifest {
  files?: string[];
  bundleDependencies?: string[];
}

const manifestOf = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Copies every bundled dependency of the root package into `dir`/node_modules; returns their names. */
export function copyBundled(dir: string): string[] {
  const names = manifestOf(ROOT).bundleDependencies ?? [];
  for (const name of names) {
    const source = realpathSync(join(ROOT, 'node_modules', name));
    const target = join(dir, 'node_modules', name);
    for (const entry of ['package.json', ...(manifestOf(source).files ?? [])])
      if (existsSync(join(source, entry)))
        cpSync(join(source, entry), join(target, entry), { recursive: true });
  }
  return names;
}
