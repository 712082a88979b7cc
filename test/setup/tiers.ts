/**
 * The test tiers, derived from what each test file reaches, so a file cannot sit in the wrong
 * tier: a test file is a unit test unless it, or a test module it imports (transitively, within
 * the test folders), starts a child process or a worker, or opens a socket (a server on
 * loopback, a request, a stdio transport that spawns its server). Unit tests run in one process
 * and touch no network: `npm run test:unit`. The sources under test are not followed: what they
 * do is reached through a test module that asks for it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const OUT_OF_PROCESS =
  /'node:(child_process|worker_threads|http|https|net|dgram)'|\bStdioClientTransport\b|\bfetch\(|\.listen\(/;
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;
/**
 * A file that measures time (an exit bound, a benchmark's reading, a slow client's cut-off)
 * says so on a line of its own, `// tier: timed`, with why: it runs after the others, one
 * file at a time, so the other files' child processes do not stand in its figures.
 */
const TIMED = /^\/\/ tier: timed\b/m;
/** A soak is a long run by its nature, even in one process. */
const SOAK = /(^|\/)soak\.test\.ts$/;

/** The test files below `folders` (relative to `root`), as paths relative to `root`. */
export function testFiles(root: string, folders: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'fixtures') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) out.push(relative(root, path));
    }
  };
  for (const folder of folders) if (existsSync(join(root, folder))) walk(join(root, folder));
  return out.sort();
}

/** Whether the test file at `file` (absolute) runs in-process only. */
export function isUnit(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return true;
  seen.add(file);
  if (SOAK.test(file)) return false;
  const text = readFileSync(file, 'utf8');
  if (OUT_OF_PROCESS.test(text)) return false;
  for (const [, spec] of text.matchAll(RELATIVE_IMPORT)) {
    const target = resolve(dirname(file), spec!).replace(
      /\.js$/,
      existsSync(resolve(dirname(file), spec!)) ? '.js' : '.ts',
    );
    if (/\/(src|dist|node_modules)\//.test(target)) continue;
    if (existsSync(target) && !isUnit(target, seen)) return false;
  }
  return true;
}

/** Whether the test file at `file` (absolute) measures time, and so runs alone. */
export function isTimed(file: string): boolean {
  return TIMED.test(readFileSync(file, 'utf8'));
}
