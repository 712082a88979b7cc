import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
/** The pinned third-party tools of the gates (own package.json and lock file). */
export const toolsDir = fileURLToPath(new URL('./tools', import.meta.url));
/** Node 22 from the `node` npm package: the conformance suite and the Inspector need it. */
export const node22 = join(toolsDir, 'node_modules', 'node', 'bin', 'node');
export const conformanceBin = join(
  toolsDir,
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
export const inspectorBin = join(
  toolsDir,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);

/** What a finished child process left behind. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; killed after `timeoutMs` so a test never hangs. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? root,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Installs the gate tools from their lock file when they are missing (CI installs them in a
 * step of its own before the tests; this covers a plain `npm test`).
 */
export async function ensureGateTools(): Promise<void> {
  if (existsSync(node22) && existsSync(conformanceBin) && existsSync(inspectorBin)) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = await run(npm, ['ci', '--no-audit', '--no-fund'], {
    cwd: toolsDir,
    timeoutMs: 240_000,
  });
  if (r.code !== 0) throw new Error(`npm ci in test/gates/tools failed: ${r.stderr.slice(-500)}`);
}

/** A running example server and its MCP endpoint. */
export interface RunningServer {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `examples/streamable-http/server.mjs` under Node 20 with extra node flags and env. */
export function startExampleServer(
  nodeArgs: string[],
  env: Record<string, string>,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [...nodeArgs, 'examples/streamable-http/server.mjs'],
      { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const stop = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    };
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`example server did not start: ${out}`));
    }, 15_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /listening (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({ url: m[1], output: () => out, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`example server exited (${code}): ${out}`));
    });
  });
}
