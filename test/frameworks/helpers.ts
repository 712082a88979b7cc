/**
 * What the framework adapter tests share: a fresh project with a framework at the versions its
 * fixture's lock file pins (`npm ci`), the packed tarball added as a user adds it, and the apps of
 * `test/frameworks/apps/` copied in; a run of one app that prints one JSON line; and the user code
 * that docs/frameworks.md shows for each adapter, checked against the app that runs it.
 */
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT, repoPath, run, tempDir } from '../observability/helpers.js';
import { runtimes, type Runtime } from '../helpers/runtimes.js';
import { npmInstall, runtimeEnv, type Packed } from '../packaging/install.js';

const APPS = repoPath('test', 'frameworks', 'apps');

/** The Node.js lines a framework supports (its `engines.node` floor), of those the tests run. */
export function runtimesFrom(major: Runtime['major']): Runtime[] {
  return runtimes().filter((r) => r.major >= major);
}

/**
 * A project holding `test/fixtures/<fixture>/`'s packages (`npm ci` with `runtime`'s npm), then
 * the tarball, then the apps. The tree is the lock file's whatever the Node line, so one install
 * serves every line the framework supports.
 */
export async function frameworkProject(
  fixture: string,
  runtime: Runtime,
  packed: Packed,
): Promise<string> {
  const dir = tempDir(`omcp-${fixture}`);
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(join(ROOT, 'test', 'fixtures', fixture, file), join(dir, file));
  const ci = await run('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: runtimeEnv(runtime),
    timeoutMs: 300_000,
  });
  if (ci.code !== 0) throw new Error(`npm ci in ${fixture} failed:\n${ci.stdout}\n${ci.stderr}`);
  await npmInstall(runtime, dir, packed.install);
  for (const file of readdirSync(APPS)) copyFileSync(join(APPS, file), join(dir, file));
  return dir;
}

/** Runs `args` with `runtime`'s node in `dir`; the JSON of the last line it printed. */
export async function runApp<T>(
  runtime: Runtime,
  dir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<T> {
  const result = await run(runtime.node, args, {
    cwd: dir,
    env: runtimeEnv(runtime, env),
    timeoutMs: 150_000,
  });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  if (result.code !== 0 || !last.startsWith('{'))
    throw new Error(`${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(last) as T;
}

/** One call the test server received (a line of its call log). */
export interface ServerCall {
  tool: string;
  n: number;
  at: number;
  retryNotBefore?: number;
}

/** What `missing.mjs` / `missing.cjs` printed. */
export interface ImportOutcome {
  imported?: true;
  name?: string;
  message?: string;
}

/**
 * The code block of docs/frameworks.md that follows `<!-- user-code: <name> -->`: the lines a
 * user writes. Each of them must be a line of the app that the test runs, so the docs show what
 * is executed.
 */
export function expectDocumentedLinesIn(name: string, app: string): void {
  const appLines = new Set(
    readFileSync(join(APPS, app), 'utf8')
      .split('\n')
      .map((l) => l.trim()),
  );
  const lines = documentedLines(name)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('//'));
  expect(lines.length).toBeGreaterThan(1);
  for (const line of lines) expect(appLines.has(line), `${app} lacks: ${line}`).toBe(true);
}

/** The lines of the code block after `<!-- user-code: <name> -->` in docs/frameworks.md. */
function documentedLines(name: string): string[] {
  const doc = readFileSync(repoPath('docs', 'frameworks.md'), 'utf8');
  const marker = `<!-- user-code: ${name} -->`;
  const at = doc.indexOf(marker);
  expect(at, `docs/frameworks.md has no ${marker}`).toBeGreaterThan(-1);
  const block = /```(?:js|ts)\n([\s\S]*?)```/.exec(doc.slice(at));
  expect(block, `no code block after ${marker}`).not.toBeNull();
  return block![1]!.split('\n');
}

/**
 * Type-checks the documented user code of `name` as a TypeScript ES module of the project
 * (strict, nodenext), between `before` (what the snippet assumes exists) and `after` (uses of
 * what it made), against the framework's own typings and this package's. The compiler's output
 * when it fails.
 */
export async function typeCheckDocumented(
  runtime: Runtime,
  dir: string,
  name: string,
  before: string,
  after: string,
): Promise<string> {
  const file = `documented-${name}.mts`;
  writeFileSync(
    join(dir, file),
    [before, ...documentedLines(name), after, 'export {};'].join('\n'),
  );
  writeFileSync(
    join(dir, `tsconfig-${name}.json`),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      files: [file],
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(runtime.node, [tsc, '-p', `tsconfig-${name}.json`], {
    cwd: dir,
    env: runtimeEnv(runtime),
    timeoutMs: 120_000,
  });
  return result.code === 0 ? '' : `${result.stdout}${result.stderr}`;
}
