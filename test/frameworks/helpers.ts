/**
 * What the framework adapter tests share: a fresh project with a framework at the versions its
 * fixture's lock file pins (`npm ci`), the packed tarball added as a user adds it, and the apps of
 * `test/frameworks/apps/` copied in; a run of one app that prints one JSON line; and the user code
 * that docs/frameworks.md shows for each adapter, checked against the app that runs it.
 */
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, repoPath, run, tempDir } from '../observability/helpers.js';
import { runtimes, type Runtime } from '../helpers/runtimes.js';
import { npmInstall, runtimeEnv, userTsconfig, type Packed } from '../packaging/install.js';
import type { ToolFailure } from '../../packages/tool-failure/src/types.js';

const APPS = repoPath('test', 'frameworks', 'apps');

/** The Node.js lines a framework supports (its `engines.node` floor), of those the tests run. */
export function runtimesFrom(major: Runtime['major']): Runtime[] {
  return runtimes().filter((r) => r.major >= major);
}

/**
 * A project holding `test/fixtures/<fixture>/`'s packages (`npm ci` with `runtime`'s npm), then
 * the tarball, then the files of `apps` (test/frameworks/apps/ unless named). The tree is the lock
 * file's whatever the Node line, so one install serves every line the framework supports; nothing
 * links into this repository.
 */
export async function frameworkProject(
  fixture: string,
  runtime: Runtime,
  packed: Packed,
  apps: string = APPS,
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
  for (const file of readdirSync(apps)) copyFileSync(join(apps, file), join(dir, file));
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

/** What an agent app's run (ai-sdk-agent.mjs, langchain-agent.mjs) shows of its model and server. */
export interface AgentRunSeen {
  /** When each model turn began (epoch milliseconds). */
  modelTurns: number[];
  /** Every turn's input to the model, as JSON. */
  modelInput: string;
  serverCalls: ServerCall[];
}

/** What no model input may hold: a `_meta` key, the failure object (its key, its fields), the server's others. */
export const HIDDEN_FROM_MODEL = [
  '"correlationId"',
  '"_meta"',
  'io.modelcontextprotocol/',
  'com.example/',
  'view_opaque_token',
];

/** Each of the named runs took two model turns, and no model input of it holds HIDDEN_FROM_MODEL. */
export function expectModelInputsHidden(runs: Array<[string, AgentRunSeen]>): void {
  for (const [name, run] of runs) {
    expect(run.modelTurns, name).toHaveLength(2);
    for (const hidden of HIDDEN_FROM_MODEL) expect(run.modelInput, name).not.toContain(hidden);
  }
}

/**
 * send_payment's retryable failure (`failure`, its note `note`): the tool was called once, and
 * neither the note nor any model input invites the model to resend it without the user's consent.
 */
export function expectSentOnceWithConsent(
  run: AgentRunSeen,
  failure: ToolFailure,
  note: string | undefined,
): void {
  expect(run.serverCalls.map((c) => c.tool)).toEqual(['send_payment']);
  expect(failure).toMatchObject({ code: 'retryable_transient_error', retryable: true });
  expect(note).toContain(
    `\nretry: only with the user's consent (the tool is not declared safe to repeat), not before ${new Date(failure.retryNotBefore!).toISOString()}\n`,
  );
  expect(run.modelInput).not.toContain('retry: yes');
}

/** What `missing.mjs` / `missing.cjs` printed. */
export interface ImportOutcome {
  imported?: true;
  name?: string;
  message?: string;
}

/**
 * The test that, in the project `dir()` with `runtime`, `missing.mjs` and `missing.cjs` importing
 * the adapter of a framework the project lacks get its one-line MissingFrameworkError, and
 * `present` (an app and the project's own adapter) imports.
 */
export function itSaysFrameworkMissing(
  runtime: Runtime,
  dir: () => string,
  missing: { adapter: string; framework: string },
  present: readonly [app: string, adapter: string],
): void {
  it('an adapter imported without its framework says so in one line, from ES modules and CommonJS', async () => {
    const expected = {
      name: 'MissingFrameworkError',
      message: `@omcp/instrumentation-mcp/frameworks/${missing.adapter} needs ${missing.framework}, which is not installed: npm install ${missing.framework}`,
    };
    for (const app of ['missing.mjs', 'missing.cjs'])
      expect(await runApp<ImportOutcome>(runtime, dir(), [app, missing.adapter])).toEqual(expected);
    expect(await runApp<ImportOutcome>(runtime, dir(), present)).toEqual({ imported: true });
  }, 60_000);
}

/**
 * The test that docs/frameworks.md shows the lines `app` runs for the adapter `name`, and that
 * they type-check (typeCheckDocumented, between `before` and `after`) against `typings`.
 */
export function itDocumentsTheAgentLoop(
  runtime: Runtime,
  dir: () => string,
  {
    name,
    app,
    typings,
    before,
    after,
  }: Record<'name' | 'app' | 'typings' | 'before' | 'after', string>,
): void {
  it(`docs/frameworks.md shows the lines the agent loop runs, and they type-check against the ${typings} typings`, async () => {
    expectDocumentedLinesIn(name, app);
    expect(await typeCheckDocumented(runtime, dir(), name, before, after)).toBe('');
  }, 120_000);
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
  writeFileSync(join(dir, `tsconfig-${name}.json`), userTsconfig([file]));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(runtime.node, [tsc, '-p', `tsconfig-${name}.json`], {
    cwd: dir,
    env: runtimeEnv(runtime),
    timeoutMs: 120_000,
  });
  return result.code === 0 ? '' : `${result.stdout}${result.stderr}`;
}
