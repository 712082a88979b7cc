import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder whose lock file pins Node.js 22, 24 and 26 (the npm `node` package, under aliases) and pnpm 10. */
export const RUNTIMES_DIR = fileURLToPath(new URL('../runtimes', import.meta.url));

/** A Node.js line the tests run on, and the binary that runs it. */
export interface Runtime {
  /** `20`, `22`, `24` or `26`. */
  major: 20 | 22 | 24 | 26;
  /** Path of the `node` binary. */
  node: string;
}

/** A file of `test/runtimes`' install; throws, saying what installs it, when it is missing. */
function installed(...path: string[]): string {
  const file = join(RUNTIMES_DIR, 'node_modules', ...path);
  if (!existsSync(file))
    throw new Error(`${file} is missing: run node scripts/install-fixtures.mjs (npm test does)`);
  return file;
}

/** One Node.js line: the Node.js 20 that runs the test suite, or 22, 24, 26 from `test/runtimes`. */
export function runtimeOf(major: Runtime['major']): Runtime {
  return major === 20
    ? { major, node: process.execPath }
    : { major, node: installed(`node${major}`, 'bin', 'node') };
}

/** The Node.js 20 that runs the test suite, and 22 and 24 from `test/runtimes`. */
export function runtimes(): Runtime[] {
  return ([20, 22, 24] as const).map(runtimeOf);
}

/** pnpm 10's entry script (from the npm `pnpm` package), run by a runtime's node. */
export function pnpmScript(): string {
  return installed('pnpm10', 'bin', 'pnpm.cjs');
}

/** The Bun binary of `test/runtimes` (the npm `bun` package's platform package for this machine). */
export function bunBinary(): string {
  return installed('@oven', `bun-${process.platform}-${process.arch}`, 'bin', 'bun');
}

/** The Deno binary of `test/runtimes` (the npm `deno` package's platform package for this machine). */
export function denoBinary(): string {
  return installed('@deno', `${process.platform}-${process.arch}-glibc`, 'deno');
}
