import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startExecutable } from '@omcp/tool-failure/internal';

/**
 * Runs executable `bin` of package `home`, the package that is now its home, as this package's
 * executable of the same name did: resolved from the running script (this package depends on
 * `home`), with the same command line, started as `home` starts it (a missing package is one
 * line and exit status `failedCode`). Kept for one release with the executables it serves; built
 * as ES modules only, like them.
 */
export function runHomeBin(home: string, bin: string, failedCode: number): void {
  startExecutable(bin, home, async () => import(binUrl(home, bin)), failedCode);
}

/** The file URL of `home`'s executable `bin`, from its package.json. */
function binUrl(home: string, bin: string): string {
  const manifest = createRequire(realpathSync(process.argv[1] ?? '.')).resolve(
    `${home}/package.json`,
  );
  const target = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> })
    .bin?.[bin];
  if (target === undefined) throw new Error(`${home} has no executable ${bin}`);
  return pathToFileURL(join(dirname(manifest), target)).href;
}
