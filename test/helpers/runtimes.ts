import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder whose lock file pins Node.js 22 and 24 (the npm `node` package, under aliases). */
export const RUNTIMES_DIR = fileURLToPath(new URL('../runtimes', import.meta.url));

/** A Node.js line the tests run on, and the binary that runs it. */
export interface Runtime {
  /** `20`, `22` or `24`. */
  major: 20 | 22 | 24;
  /** Path of the `node` binary. */
  node: string;
}

/** The Node.js 20 that runs the test suite, and 22 and 24 from `test/runtimes`. */
export function runtimes(): Runtime[] {
  const bin = (alias: string): string => join(RUNTIMES_DIR, 'node_modules', alias, 'bin', 'node');
  const out: Runtime[] = [{ major: 20, node: process.execPath }];
  for (const [major, alias] of [
    [22, 'node22'],
    [24, 'node24'],
  ] as const) {
    const node = bin(alias);
    if (!existsSync(node))
      throw new Error(`${node} is missing: run node scripts/install-fixtures.mjs (npm test does)`);
    out.push({ major, node });
  }
  return out;
}
