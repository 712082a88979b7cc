/**
 * What the server-framework tests share: a fresh project made from a fixture's own lock file
 * (`npm ci` with the npm of the Node.js line under test), the packed tarball installed into it,
 * and the official SDK client in this process (instrumented in memory) talking to a server the
 * project runs as a stdio child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ROOT, freePort, otlpTracesEnv, run, tempDir } from '../observability/helpers.js';
import type { Runtime } from '../helpers/runtimes.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { NAME, npmInstall, pack, runtimeEnv, type Packed } from '../packaging/install.js';
import { afterAll, beforeAll } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

/** The zero-code entry, as users start it. */
export const REGISTER = ['--import', `${NAME}/register`];

/** What a test file uses of its server projects, once beforeAll has made them. */
export interface ServerProjects {
  /** The project of a Node.js line. */
  project(major: number): string;
  readonly receiver: OtlpReceiver;
}

/**
 * For the calling test file: projectsFromLock of test/fixtures/<fixture> for `targets` with the
 * packed tarball, and an OTLP receiver, made in beforeAll; the receiver closed in afterAll.
 */
export function useServerProjects(
  fixture: string,
  targets: readonly Runtime[],
  files: readonly string[],
): ServerProjects {
  const projects = new Map<number, string>();
  let receiver: OtlpReceiver | undefined;
  beforeAll(async () => {
    const packed = pack();
    receiver = await startOtlpReceiver();
    const dirs = await projectsFromLock(
      targets,
      packed,
      join(ROOT, 'test', 'fixtures', fixture),
      files,
    );
    targets.forEach((runtime, i) => projects.set(runtime.major, dirs[i]!));
  }, 600_000);
  afterAll(async () => {
    await receiver?.close();
  });
  return {
    project: (major) => {
      const dir = projects.get(major);
      if (dir === undefined) throw new Error(`no ${fixture} project for Node.js ${major}`);
      return dir;
    },
    get receiver() {
      if (receiver === undefined) throw new Error('no OTLP receiver yet');
      return receiver;
    },
  };
}

/**
 * Fresh projects, one per runtime, holding `files` of `fixture` (its package.json and lock file
 * among them): the application's dependencies installed once by `npm ci` and copied to each
 * (the same tree npm ci makes from the same lock file), then the tarball added to each by the
 * npm of its runtime, as a user adds it (npm picks the OpenTelemetry line for that Node.js).
 */
export async function projectsFromLock(
  targets: readonly Runtime[],
  packed: Packed,
  fixture: string,
  files: readonly string[],
): Promise<string[]> {
  const dirs = targets.map((runtime) => {
    const dir = tempDir(`omcp-frameworks-node${runtime.major}`);
    for (const file of ['package.json', 'package-lock.json', ...files])
      copyFileSync(join(fixture, file), join(dir, file));
    return dir;
  });
  const [first, ...others] = dirs;
  const ci = await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: first!,
    env: runtimeEnv(targets[0]!),
    timeoutMs: 300_000,
  });
  if (ci.code !== 0) throw new Error(`npm ci failed:\n${ci.stdout}\n${ci.stderr}`);
  for (const dir of others)
    cpSync(join(first!, 'node_modules'), join(dir, 'node_modules'), { recursive: true });
  await Promise.all(
    targets.map((runtime, i) =>
      npmInstall(runtime, dirs[i]!, ['--prefer-offline', ...packed.install]),
    ),
  );
  return dirs;
}

/** The OTLP/HTTP export of a server child process to the test's receiver. */
export function otlpEnv(receiverUrl: string, serviceName: string): NodeJS.ProcessEnv {
  return {
    ...otlpTracesEnv(receiverUrl, serviceName),
    // The instrumentation's diagnostics on stderr: a patch that does not fit says so there.
    OTEL_LOG_LEVEL: 'warn',
  };
}

/** A tool call and what came back: the result, or the error the client threw. */
export interface Outcome {
  result?: Record<string, unknown>;
  error?: { code: unknown; message: string };
}

/**
 * Starts `args` with the runtime's node in `cwd` as a stdio server, calls each tool with the
 * official SDK client, runs `beforeClose`, closes; the outcomes by call label and what the server
 * wrote on stderr.
 */
export async function callTools(
  runtime: Runtime,
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  calls: Calls,
  beforeClose?: () => Promise<void>,
): Promise<{ outcomes: Record<string, Outcome>; stderr: string }> {
  const transport = new StdioClientTransport({
    command: runtime.node,
    args: [...args],
    cwd,
    env: runtimeEnv(runtime, env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    return { outcomes: await callToolsOver(transport, calls, beforeClose), stderr };
  } catch (error) {
    throw new Error(`${String(error)}; the server said:\n${stderr}`);
  }
}

/** Tool calls by label. */
export type Calls = Record<string, { name: string; arguments?: Record<string, unknown> }>;

/** Connects the official SDK client over `transport`, calls each tool, runs `beforeClose`, closes. */
export async function callToolsOver(
  transport: Transport,
  calls: Calls,
  beforeClose?: () => Promise<void>,
): Promise<Record<string, Outcome>> {
  const client = new Client({ name: 'frameworks-test', version: '1.0.0' });
  const outcomes: Record<string, Outcome> = {};
  try {
    await client.connect(transport);
    for (const [label, call] of Object.entries(calls)) {
      outcomes[label] = await client.callTool(call).then(
        (result) => ({ result: result as Record<string, unknown> }),
        (e: unknown) => ({
          error: { code: (e as { code?: unknown }).code, message: String(e) },
        }),
      );
    }
    await beforeClose?.();
  } finally {
    await client.close();
  }
  return outcomes;
}

/** The failure object of a result, if any. */
export function failureOf(outcome: Outcome | undefined): Record<string, unknown> | undefined {
  const meta = outcome?.result?._meta as Record<string, unknown> | undefined;
  return meta?.[KEY] as Record<string, unknown> | undefined;
}

/** A result less the failure object the instrumentation adds (and `_meta` when that was all). */
export function withoutFailure(outcome: Outcome | undefined): Outcome | undefined {
  if (outcome?.result === undefined) return outcome;
  const { _meta: meta, ...rest } = outcome.result;
  if (meta === undefined) return outcome;
  const { [KEY]: _failure, ...others } = meta as Record<string, unknown>;
  return { result: Object.keys(others).length === 0 ? rest : { ...rest, _meta: others } };
}

/**
 * Starts `args` with the runtime's node in `cwd` as an HTTP server on a free port of 127.0.0.1;
 * resolves once it writes `ready` on stderr, with its MCP endpoint and a way to stop it.
 */
export async function startHttpServer(
  runtime: Runtime,
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: string,
): Promise<{ url: URL; stderr: () => string; stop: () => void }> {
  const port = await freePort();
  const child: ChildProcess = spawn(runtime.node, args, {
    cwd,
    env: runtimeEnv(runtime, { ...env, PORT: String(port) }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listen: ${stderr}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${stderr}`));
    });
  });
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    stderr: () => stderr,
    stop: () => child.kill('SIGTERM'),
  };
}
