import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { runMcpFailures } from '../../packages/mcp-failures/src/cli/lookup-command.js';
import { mkdtempSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** A path inside the repository. */
export function repoPath(...parts: string[]): string {
  return join(ROOT, ...parts);
}

/** A fresh temporary directory. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

/** What a finished child process printed, and how it exited. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program and resolves with its exit code and output. A program that is not installed
 * rejects: tests that need promtool or prometheus fail in CI instead of skipping.
 */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd ?? ROOT,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code === 'string') {
          const hint =
            error.code === 'ENOENT'
              ? ` (not installed? the Debian package "prometheus" provides it)`
              : '';
          reject(new Error(`cannot run ${file}: ${error.code}${hint}`));
          return;
        }
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/** Runs `mcp-failures` in-process on the real file system and fetch; what it printed and its exit code. */
export async function lookupCli(
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runMcpFailures(argv, {
    readFile: (path: string) => readFile(path, 'utf8'),
    fetch: (url: string) => fetch(url, { signal: AbortSignal.timeout(5_000) }),
    stdout: (t: string) => void (out += t),
    stderr: (t: string) => void (err += t),
    now: () => Date.now(),
  });
  return { code, out, err };
}

/**
 * Runs the in-memory failing-call fixture app under the zero-code entry, exporting OTLP/HTTP JSON
 * to `endpoint` with `env` on top (metrics and logs off unless `env` says otherwise); resolves
 * with the `correlationId` the client received. Asynchronous, so this process can answer the
 * child's exports while it runs.
 */
export async function runFailingApp(endpoint: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/inmemory-app.mjs'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        ...env,
      },
    },
  );
  const result = JSON.parse(stdout.split('\n')[0]!) as {
    result: { _meta: Record<string, { correlationId: string }> };
  };
  return result.result._meta['io.modelcontextprotocol/toolFailure']!.correlationId;
}

/** Traces only, over OTLP/HTTP JSON to `receiverUrl` as `serviceName`, batches every 100 ms. */
export function otlpTracesEnv(receiverUrl: string, serviceName: string): NodeJS.ProcessEnv {
  return {
    OTEL_SERVICE_NAME: serviceName,
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  };
}

/**
 * The environment of an app under the register entry whose metrics Prometheus scrapes on
 * `metricsPort` and whose traces (and logs, with `logs: 'otlp'`) go to the OTLP/HTTP JSON
 * receiver at `otlpUrl`, as `service`, its span batches sent every 200 ms.
 */
export function scrapedAppEnv(
  service: string,
  metricsPort: number,
  otlpUrl: string,
  logs: 'otlp' | 'none',
): NodeJS.ProcessEnv {
  return {
    OTEL_SERVICE_NAME: service,
    OTEL_METRICS_EXPORTER: 'prometheus',
    OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
    OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_LOGS_EXPORTER: logs,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
}

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });
}

/** A started program: its process and everything it printed so far. */
export interface Started {
  child: ChildProcess;
  output(): string;
}

/**
 * Starts a program from the repository root and resolves once it runs; a program that is not
 * installed rejects with one line (tests that need it fail instead of skipping).
 */
export async function startProgram(
  program: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Started> {
  const child = spawn(program, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolveStart, reject) => {
    child.once('error', (e) => reject(new Error(`cannot start ${program}: ${e.message}`)));
    child.once('spawn', () => resolveStart());
  });
  return { child, output: () => output };
}

/** Stops a started program with SIGTERM and waits for it to exit. */
export async function stopProgram(started: Started | undefined): Promise<void> {
  const child = started?.child;
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.kill('SIGTERM');
  await exited;
}
