/**
 * What the Bun and Deno tests share: the fixture application (test/fixtures/runtimes-bun-deno,
 * its dependencies installed from its lock file by scripts/install-fixtures.mjs) copied into a
 * fresh project, with the packed tarball added by npm, as a user adds it; the official SDK client (on the Node.js that runs the tests) calling a stdio
 * server the runtime runs there; and the OTLP/HTTP export of that server to a receiver on
 * 127.0.0.1.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { freePort, repoPath, run, tempDir } from '../observability/helpers.js';
import { runtimeOf } from '../helpers/runtimes.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  callToolsOver,
  failureOf,
  type Calls,
  type Outcome,
} from '../frameworks/server-install.js';
import { NAME, PACKS_ENV, newProject, npmInstall, pack, runtimeEnv } from '../packaging/install.js';

const FIXTURE = repoPath('test', 'fixtures', 'runtimes-bun-deno');
/** The Node.js whose npm installs the projects and whose SDK client calls the servers. */
const NODE = runtimeOf(20);

/** The zero-code entry's file, as Deno's `--preload` takes it (a path, not a package name). */
export const ENTRY_FILE = `./node_modules/${NAME}/register/index.mjs`;

/** The line the entry prints once it started the fixture's OpenTelemetry SDK. */
export const STARTED = `${NAME}/register: OpenTelemetry JS 2.x started (sdk-node 0.223.0, api 1.9.1)\n`;

/** What every server is asked: one call that answers, one returned failure, one thrown. */
export const CALLS: Calls = {
  ok: { name: 'ok' },
  fails: { name: 'fails' },
  throws: { name: 'throws' },
};

/** The projects both test files run in. */
export interface Projects {
  /** The fixture application with the tarball; `dir/bunfig` holds a bunfig.toml preloading the entry. */
  dir: string;
  /** A project with nothing but the tarball. */
  bare: string;
}

/**
 * The projects, installed once for the run: the first test file to ask installs them (beside the
 * run's tarballs) and the other waits for that install instead of making its own.
 */
export async function installProjects(): Promise<Projects> {
  const packs = process.env[PACKS_ENV];
  if (packs === undefined) return install();
  const record = join(packs, 'runtimes-bun-deno.json');
  try {
    mkdirSync(join(packs, 'runtimes-bun-deno.lock'));
  } catch {
    await eventually("the other test file's install", () => existsSync(record), 300_000);
    const made = JSON.parse(readFileSync(record, 'utf8')) as Projects | { error: string };
    if ('error' in made) throw new Error(`the shared install failed: ${made.error}`);
    return made;
  }
  const write = (value: Projects | { error: string }): void => {
    writeFileSync(`${record}.tmp`, JSON.stringify(value));
    renameSync(`${record}.tmp`, record);
  };
  try {
    const made = await install();
    write(made);
    return made;
  } catch (error) {
    write({ error: String(error) });
    throw error;
  }
}

async function install(): Promise<Projects> {
  if (!existsSync(join(FIXTURE, 'node_modules', '.package-lock.json')))
    throw new Error(
      `${FIXTURE}/node_modules is missing: run node scripts/install-fixtures.mjs (npm test does)`,
    );
  const packed = pack();
  // The application's dependencies as npm ci installed them from the fixture's lock file; the
  // tarball added by npm, as a user adds it to an existing project.
  const dir = tempDir('omcp-runtimes-bun-deno');
  cpSync(FIXTURE, dir, { recursive: true });
  const [bare] = await Promise.all([
    newProject(NODE, packed, [], { prefix: 'omcp-runtimes-bare' }),
    npmInstall(NODE, dir, ['--prefer-offline', ...packed.install]),
  ]);
  cpSync(join(FIXTURE, 'plain.mjs'), join(bare, 'plain.mjs'));
  return { dir, bare };
}

/** The environment of a runtime's child: no update checks or prompts, plus `extra`. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return runtimeEnv(NODE, { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', ...extra });
}

/**
 * OTLP/HTTP JSON to the receiver, batches held for a minute: what arrives was sent by the
 * entry's flush when the server ended (or, in manual mode, by the application's shutdown).
 */
export function exportTo(receiver: OtlpReceiver): NodeJS.ProcessEnv {
  return {
    OTEL_SERVICE_NAME: 'runtime-server',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '60000',
    OTEL_BLRP_SCHEDULE_DELAY: '60000',
    OTEL_METRIC_EXPORT_INTERVAL: '60000',
    // The SDK's and the instrumentation's diagnostics on stderr, where the tests see any.
    OTEL_LOG_LEVEL: 'warn',
  };
}

/** How long a server may take for every call together; longer is a hang, and a test failure. */
const CALLS_BOUND_MS = 20_000;

/**
 * Runs `command args` in `cwd` as a stdio server, calls {@link CALLS} with the official SDK
 * client and closes; the outcomes and what the server wrote on stderr. A server that does not
 * answer within {@link CALLS_BOUND_MS}, or ends, fails the test with its stderr.
 */
export async function callServer(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ outcomes: Record<string, Outcome>; stderr: string }> {
  const transport = new StdioClientTransport({
    command,
    args: [...args],
    cwd,
    env: childEnv(env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void transport.close();
      reject(new Error(`no answer within ${CALLS_BOUND_MS} ms`));
    }, CALLS_BOUND_MS);
  });
  try {
    const outcomes = await Promise.race([callToolsOver(transport, CALLS), hang]);
    return { outcomes, stderr };
  } catch (error) {
    throw new Error(`${String(error)}; the server said:\n${stderr}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Every call answered: `ok` as the tool returned it, both failures with a failure object. */
export function expectAnswered(outcomes: Record<string, Outcome>): string[] {
  expect(outcomes.ok?.result?.content).toEqual([{ type: 'text', text: 'fine' }]);
  expect(failureOf(outcomes.ok)).toBeUndefined();
  return (['fails', 'throws'] as const).map((label) => {
    expect(outcomes[label]?.result?.isError, label).toBe(true);
    const id = failureOf(outcomes[label])?.correlationId;
    expect(id, label).toMatch(/^[0-9a-f]{32}$/);
    return id as string;
  });
}

/** Resolves once `holds` is true, polled; rejects with `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  holds: () => boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Each failure's `correlationId` is the trace of a server span of its call that the server
 * exported; with `logs`, a failure log record arrived in that trace too; with `metrics`, a
 * metric export arrived.
 */
export async function expectExported(
  receiver: OtlpReceiver,
  ids: readonly string[],
  options: { logs: boolean; metrics: boolean },
): Promise<void> {
  const [fails, throws] = ids;
  const serverSpan = (tool: string, traceId: string | undefined) =>
    receiver.spans.some(
      (s) => s.name === `tools/call ${tool}` && s.kind === 2 && s.traceId === traceId,
    );
  await eventually('server spans in the correlationId traces', () =>
    [serverSpan('fails', fails), serverSpan('throws', throws)].every(Boolean),
  );
  if (options.logs)
    await eventually('failure log records in the correlationId traces', () =>
      ids.every((id) => receiver.logs.some((l) => l.traceId === id)),
    );
  if (options.metrics) await eventually('a metric export', () => receiver.metricsRequests > 0);
}

/**
 * Runs `command args` (exit-v1.mjs or manual-client-v1.mjs: one failing call between a client and
 * a server in one process) exporting to `receiver`; checks it ended with `code` and printed `stderr`,
 * and that the client and the server span arrived in the trace of the correlationId it printed.
 * exit-v1.mjs ends by `process.exit(3)` with its telemetry batched: what arrives was sent by the
 * entry's synchronous send at exit.
 */
export async function expectClientAndServerSpans(
  command: string,
  args: readonly string[],
  cwd: string,
  receiver: OtlpReceiver,
  expected: { code: number; stderr: string },
): Promise<void> {
  // Without the SDK's diagnostics: its "Accessing resource attributes before async attributes
  // settled" at a process.exit() this early is the same on Node.js.
  const { OTEL_LOG_LEVEL: _, ...env } = exportTo(receiver);
  const result = await run(command, args, {
    cwd,
    env: childEnv(env),
    timeoutMs: 20_000,
  });
  expect(result.code, result.stderr).toBe(expected.code);
  expect(result.stderr).toBe(expected.stderr);
  const id = /correlationId=([0-9a-f]{32})/.exec(result.stdout)?.[1];
  expect(id, result.stdout).toBeDefined();
  await eventually('the client and the server span in the correlationId trace', () => {
    const kinds = receiver.spans
      .filter((s) => s.name === 'tools/call throws' && s.traceId === id)
      .map((s) => s.kind);
    return kinds.includes(2) && kinds.includes(3);
  });
}

/**
 * Runs http-v1.mjs (`command args`) on a free port of 127.0.0.1, calls {@link CALLS} over
 * Streamable HTTP, then ends it with SIGTERM; the outcomes, its stderr and how it ended. A server
 * that does not listen, answer or end within its bound fails the test.
 */
export async function callHttpServer(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ outcomes: Record<string, Outcome>; stderr: string; code: number | null }> {
  const port = await freePort();
  const child = spawn(command, [...args], {
    cwd,
    env: childEnv({ ...env, PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('not listening within 20 s')), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      void ended.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the server ended (${code})`));
      });
    });
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const outcomes = await callToolsOver(new StreamableHTTPClientTransport(url), CALLS);
    child.kill('SIGTERM');
    const code = await Promise.race([
      ended,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('did not end within 10 s of SIGTERM')), 10_000),
      ),
    ]);
    return { outcomes, stderr, code };
  } catch (error) {
    throw new Error(`${String(error)}; the server said:\n${stderr}`);
  } finally {
    child.kill('SIGKILL');
  }
}
