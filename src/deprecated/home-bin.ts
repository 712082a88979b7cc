import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { firstLineOf } from '../shared/first-line.js';

/**
 * Runs executable `bin` of package `home`, the package that is now its home, as this package's
 * executable of the same name did: resolved from the running script (this package depends on
 * `home`), with the same command line. Kept for one release with the executables it serves.
 */
export function runHomeBin(home: string, bin: string): void {
  try {
    const manifest = createRequire(realpathSync(process.argv[1] ?? '.')).resolve(
      `${home}/package.json`,
    );
    const target = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> })
      .bin?.[bin];
    if (target === undefined) throw new Error(`${home} has no executable ${bin}`);
    import(pathToFileURL(join(dirname(manifest), target)).href).catch(fail(bin));
  } catch (error) {
    fail(bin)(error);
  }
}

const fail =
  (bin: string) =>
  (error: unknown): void => {
    process.stderr.write(`${bin}: ${firstLineOf(error)}\n`);
    process.exitCode = 2;
  };
