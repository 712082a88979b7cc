import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ROOT, type OtelLine } from './cases.js';
import type { OtlpReceiver } from './otlp-receiver.js';
import { copyPackage as placePackage } from '../../scripts/workspace-copy.mjs';

// What the matrix files share for their child processes: how many run at once (across the
// cases of one file), the copy of this package placed in a line's tree, the environment of a
// child and its run.

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

/**
 * For the calling file: this package's root for each of `lines` (the repository for 2.x, a copy
 * in the line's tree otherwise, removed afterwards) and `receiver` running, from beforeAll to
 * afterAll. Returns the root of a line.
 */
export function useLinePackages(
  lines: readonly OtelLine[],
  receiver: OtlpReceiver,
): (line: OtelLine) => string {
  const packageDirs = new Map<OtelLine['name'], string>();
  beforeAll(async () => {
    for (const line of lines)
      packageDirs.set(line.name, line.name === '2.x' ? ROOT : copyPackage(line));
    await receiver.start();
  });
  afterAll(async () => {
    for (const dir of packageDirs.values())
      if (dir !== ROOT) rmSync(dir, { recursive: true, force: true });
    await receiver.stop();
  });
  return (line) => {
    const dir = packageDirs.get(line.name);
    if (dir === undefined) throw new Error(`no package for OpenTelemetry JS ${line.name}`);
    return dir;
  };
}

/**
 * A child's environment: nothing of the test runner's own loader or telemetry settings, the
 * line's folder and this package's (matrix-shared/line.cjs), and traces over OTLP/HTTP JSON to
 * `endpoint` as `service`, with the case's own `vars`.
 */
export function childEnv(
  line: OtelLine,
  packageDir: string,
  service: string,
  endpoint: string,
  vars: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (k !== 'NODE_OPTIONS' && !k.startsWith('OTEL_') && !k.startsWith('VITEST')) env[k] = v;
  return {
    ...env,
    ...vars,
    MATRIX_OTEL_DIR: line.dir,
    MATRIX_PACKAGE_DIR: packageDir,
    OTEL_SERVICE_NAME: service,
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  };
}

/** Runs `node` with `args` in the line's folder; killed after `timeoutMs`, never rejects. */
export function runChild(
  node: string,
  args: readonly string[],
  line: OtelLine,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      node,
      args,
      {
        cwd: line.dir,
        env,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : (error.code ?? (error.killed ? 'timeout' : 'error'));
        resolve({ code, stdout, stderr });
      },
    );
  });
}
