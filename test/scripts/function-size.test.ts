/**
 * No function in src/ spans 100 lines or more (scripts/function-sizes.mjs): a function that long
 * is usually two jobs. The scanner itself is checked on a function it must find.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { longFunctions } from '../../scripts/function-sizes.mjs';

describe('function sizes', () => {
  it('finds a long function, by the name it is assigned to', () => {
    const dir = mkdtempSync(join(tmpdir(), 'omcp-fn-'));
    const body = Array.from({ length: 120 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    writeFileSync(join(dir, 'long.ts'), `export const long = () => {\n${body}\n};\n`);
    writeFileSync(join(dir, 'short.ts'), 'export function short() {\n  return 1;\n}\n');
    expect(longFunctions([dir], 100)).toEqual([
      { lines: 122, file: `${dir}/long.ts`, line: 1, name: 'long' },
    ]);
  });

  it('no function in src/ spans 100 lines or more', () => {
    const found = longFunctions(['src'], 100).map(
      (f) => `${f.lines} ${f.file}:${f.line} ${f.name}`,
    );
    expect(found).toEqual([]);
  });
});
