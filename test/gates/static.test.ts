/**
 * The static checks, as part of `npm test` so that the README's two commands run everything CI
 * runs: the typecheck of every package and test (tsconfig.json), ESLint and Prettier over the
 * repository. Each runs as its own process, beside the other test files.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/workspace.mjs';

const exec = promisify(execFile);

/** Runs the tool's bin with node in the repository; its exit code and output. */
async function check(bin: string, args: readonly string[]) {
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      [join(ROOT, 'node_modules', bin), ...args],
      {
        cwd: ROOT,
        maxBuffer: 64 * 2 ** 20,
        timeout: 240_000,
      },
    );
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    return { code: code ?? 1, output: `${stdout ?? ''}${stderr ?? ''}` };
  }
}

describe('the static checks', () => {
  it(
    'typecheck: tsc --noEmit over every package, test and script',
    { timeout: 300_000 },
    async () => {
      const run = await check('typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit']);
      expect(run.output).toBe('');
      expect(run.code).toBe(0);
    },
  );

  it('lint: ESLint over the repository, with no warning', { timeout: 300_000 }, async () => {
    const run = await check('eslint/bin/eslint.js', ['.', '--max-warnings', '0']);
    expect(run.output).toBe('');
    expect(run.code).toBe(0);
  });

  it('format: Prettier finds every file formatted', { timeout: 300_000 }, async () => {
    const run = await check('prettier/bin/prettier.cjs', ['--check', '.', '--log-level', 'warn']);
    expect(run.output).toBe('');
    expect(run.code).toBe(0);
  });
});
