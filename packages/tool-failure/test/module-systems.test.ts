import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/module-systems/', import.meta.url));

function run(file: string): {
  exports: string[];
  failure: Record<string, unknown>;
  isError: boolean;
} {
  const out = execFileSync(process.execPath, [file], { cwd: fixtures, encoding: 'utf8' });
  return JSON.parse(out) as {
    exports: string[];
    failure: Record<string, unknown>;
    isError: boolean;
  };
}

describe('the built package under both module systems', () => {
  it('has a build to load', () => {
    expect(existsSync(`${root}/dist/esm/index.js`), 'run `npm run build` first').toBe(true);
    expect(existsSync(`${root}/dist/cjs/index.js`), 'run `npm run build` first').toBe(true);
  });

  it('loads with import and require and exposes the same exports that work the same', () => {
    const esm = run('load.mjs');
    const cjs = run('load.cjs');
    expect(esm.exports).toContain('toolFailure');
    expect(esm.exports).toContain('readToolFailure');
    expect(cjs.exports).toEqual(esm.exports);
    for (const r of [esm, cjs]) {
      expect(r.isError).toBe(true);
      expect(r.failure).toMatchObject({ class: 'governance', code: 'auth_required' });
      expect(r.failure.correlationId).toMatch(/^[0-9a-f]{32}$/);
    }
  });
});
