/**
 * One section of `npm run bench` at a tiny scale, as the smoke tests run it: `bench/run.mjs` in a
 * child process under a record name of its own (so it never touches the committed summary or
 * another test's record), its earlier record removed first. Exit 1 is "some target does not
 * hold", expected at these scales; anything else (a crash prints no report) fails the test.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Removes the record `name` (bench/results/runs/`name`.json and .txt). */
export function removeRecord(name: string): void {
  for (const ext of ['json', 'txt'])
    rmSync(`${ROOT}/bench/results/runs/${name}.${ext}`, { force: true });
}

/** Runs the bench with `env` (BENCH_ONLY and its scale) under record `name`. */
export function runBenchSection(name: string, env: Record<string, string>, timeoutMs: number) {
  removeRecord(name);
  const run = spawnSync(process.execPath, ['bench/run.mjs'], {
    cwd: ROOT,
    env: { ...process.env, ...env, BENCH_RESULTS_NAME: name },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  expect(run.error).toBeUndefined();
  expect([0, 1], run.stderr).toContain(run.status);
  return {
    stdout: run.stdout,
    stderr: run.stderr,
    /** The run's full record (bench/results/runs/`name`.json). */
    record: <T>(): T =>
      JSON.parse(readFileSync(`${ROOT}/bench/results/runs/${name}.json`, 'utf8')) as T,
  };
}
