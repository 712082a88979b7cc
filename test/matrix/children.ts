import { existsSync, mkdtempSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { OtelLine } from './cases.js';
import { copyPackage as placePackage } from '../../scripts/workspace-copy.mjs';

// What the matrix files share for their child processes: how many run at once (across the
// cases of one file), and the copy of this package placed in a line's tree.

const CONCURRENCY = Math.max(
  1,
  Number(process.env.MATRIX_CONCURRENCY) || Math.min(2, availableParallelism()),
);

let slots = CONCURRENCY;
const waiting: Array<() => void> = [];
/** Runs `task` when one of the file's slots is free. */
export async function limited<T>(task: () => Promise<T>): Promise<T> {
  if (slots === 0) await new Promise<void>((resolve) => waiting.push(resolve));
  else slots--;
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next !== undefined) next();
    else slots++;
  }
}

/** A copy of what the package ships, placed in the line's node_modules as an install would. */
export function copyPackage(line: OtelLine): string {
  if (!existsSync(line.nodeModules))
    throw new Error(`${line.nodeModules} is missing: run node scripts/install-fixtures.mjs`);
  return placePackage(mkdtempSync(join(line.nodeModules, '.omcp-matrix-')));
}
