// The mcp-failure-proxy CLI as a child process, for the tests that run it for real.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';
import { binPath } from '../../../scripts/workspace.mjs';

export const root = fileURLToPath(new URL('../../..', import.meta.url));
export const CLI = binPath('mcp-failure-proxy');

export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('OTEL_')) env[k] = v;
  return env;
}

export function telemetryEnv(receiver: OtlpReceiver): Record<string, string> {
  return {
    ...baseEnv(),
    OTEL_SERVICE_NAME: 'mcp-failure-proxy',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_BLRP_SCHEDULE_DELAY: '50',
  };
}

/** The CLI as a child (its pid in `pid`); `listening` resolves with its URL, `exited` with its code and output. */
export function startCli(args: string[], env: Record<string, string> = baseEnv()) {
  const child: ChildProcess = spawn(process.execPath, [CLI, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stdout = '';
  let stderr = '';
  let onLine: ((url: string) => void) | undefined;
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    const m = /listening on (\S+)\n/.exec(stderr);
    if (m?.[1] !== undefined) onLine?.(m[1]);
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  const listening = new Promise<string>((resolve, reject) => {
    onLine = resolve;
    void exited.then((out) => reject(new Error(`the CLI exited ${out.code}: ${out.stderr}`)));
  });
  listening.catch(() => undefined);
  return {
    pid: child.pid,
    listening,
    exited,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
