/**
 * What the OpenAI Agents JS and Mastra tests share: a fresh project with the framework at the
 * versions its fixture pins (`npm ci` from the committed lock file), this package's packed
 * tarball installed into it as a user would, the apps and the MCP server of test/frameworks/b/
 * copied beside them, and the record of what reached the server.
 */
import { copyFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run, tempDir, type RunResult } from '../observability/helpers.js';
import type { Runtime } from '../helpers/runtimes.js';
import { npmInstall, runtimeEnv, type Packed } from '../packaging/install.js';

/** The apps and the server the projects run. */
export const APPS_DIR = join(ROOT, 'test', 'frameworks', 'b');

/** One tools/call as the server recorded it. */
export interface ServerCall {
  /** The server's name (its SERVER_NAME), when the app runs several. */
  server: string | undefined;
  tool: string;
  /** The how-manieth call of this tool in its server process. */
  n: number;
  /** Epoch milliseconds when the server received it. */
  at: number;
  traceparent: string | undefined;
}

/**
 * A project with `fixture`'s locked dependencies and the tarball, set up with `runtime`'s npm.
 * The apps are copied in; nothing links into this repository.
 */
export async function frameworkProject(
  fixture: 'openai-agents' | 'mastra',
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
  if (ci.code !== 0) throw new Error(`npm ci failed:\n${ci.stdout}\n${ci.stderr}`);
  await npmInstall(runtime, dir, packed.install);
  for (const file of readdirSync(APPS_DIR)) copyFileSync(join(APPS_DIR, file), join(dir, file));
  return dir;
}

/** Runs an app of the project under the register entry, exporting spans to `otlpUrl`. */
export function runApp(
  runtime: Runtime,
  project: string,
  app: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<RunResult> {
  return run(runtime.node, ['--import', '@omcp/instrumentation-mcp/register', app, ...args], {
    cwd: project,
    env: runtimeEnv(runtime, {
      SERVER_FILE: join(project, 'server.mjs'),
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env,
    }),
    timeoutMs: 120_000,
  });
}

/** The calls the server recorded in `file` (none when it was never written). */
export function serverCalls(file: string): ServerCall[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ServerCall);
}

/** The JSON lines an app printed on stdout, keyed by their `tool`. */
export function linesByTool<T extends { tool: string }>(stdout: string): Map<string, T> {
  const out = new Map<string, T>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const value = JSON.parse(line) as T;
    out.set(value.tool, value);
  }
  return out;
}

/** The lines of `app` between `// docs:start <name>` and `// docs:end <name>`. */
export function docsRegion(app: string, name: string): string {
  const text = readFileSync(join(APPS_DIR, app), 'utf8');
  const start = text.indexOf(`// docs:start ${name}\n`);
  const end = text.indexOf(`// docs:end ${name}`);
  if (start === -1 || end === -1) throw new Error(`${app} has no docs region ${name}`);
  return text.slice(start + `// docs:start ${name}\n`.length, end).trimEnd();
}

/** The fenced code blocks of docs/frameworks.md. */
export function frameworksDocBlocks(): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'frameworks.md'), 'utf8');
  return [...text.matchAll(/```(?:js|ts|javascript|typescript)\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.trimEnd(),
  );
}

/**
 * What importing (ESM) or requiring (CommonJS) `frameworks/<adapter>` prints in `project`:
 * `imported`, or the error's name and message.
 */
export async function loadAdapter(
  runtime: Runtime,
  project: string,
  adapter: string,
  file: 'load.mjs' | 'load.cjs',
): Promise<RunResult> {
  return run(runtime.node, [file, adapter], { cwd: project, env: runtimeEnv(runtime) });
}

/** The one line an adapter's import gives when its framework is not installed. */
export function missingFrameworkLine(adapter: string, framework: string): string {
  return `MissingFrameworkError: @omcp/instrumentation-mcp/frameworks/${adapter} needs ${framework}, which is not installed: npm install ${framework}\n`;
}

/** What test/frameworks/b/wrap-checks.mjs prints for an adapter. */
export interface WrapChecks {
  notTheFramework: string | null;
  retryOnThrow: string | null;
  sameObject: boolean;
}

/** Runs wrap-checks.mjs for `adapter` in `project`. */
export async function wrapChecks(
  runtime: Runtime,
  project: string,
  adapter: string,
): Promise<WrapChecks> {
  const result = await run(runtime.node, ['wrap-checks.mjs', adapter], {
    cwd: project,
    env: runtimeEnv(runtime),
  });
  if (result.code !== 0) throw new Error(`wrap-checks.mjs failed:\n${result.stderr}`);
  const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
  return JSON.parse(line ?? 'null') as WrapChecks;
}
