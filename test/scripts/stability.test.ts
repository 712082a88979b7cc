// docs/stability.md gives every emitted name and every option a level; this keeps its tables equal
// to the names src/semconv.ts spells and the options src/types.ts declares.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { manifestOf, workspacePackages } from '../../scripts/workspace.mjs';
import * as semconv from '../../src/semconv.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(ROOT, 'docs/stability.md'), 'utf8');
const LEVELS = ['Stable', 'Experimental', 'Upstream (Development)', 'Upstream (stable)'];

/** The rows between `<!-- {marker}:start -->` and its end, as arrays of trimmed cells. */
function rows(marker: string): string[][] {
  const start = doc.indexOf(`<!-- ${marker}:start -->`);
  const end = doc.indexOf(`<!-- ${marker}:end -->`);
  if (start < 0 || end < start) throw new Error(`docs/stability.md: no ${marker} markers`);
  return doc
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .slice(1)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/^`|`$/g, '')),
    );
}

/** The names src/semconv.ts exports for attributes, metrics and events (not values or buckets). */
const emittedNames = (): string[] =>
  Object.entries(semconv)
    .filter(
      ([key, value]) =>
        /^(ATTR|METRIC|EVENT|LOG_ATTR)_/.test(key) &&
        key !== 'METRIC_CODE_OTHER' &&
        typeof value === 'string',
    )
    .map(([, value]) => value as string);

function sourceText(dir: string): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((e) =>
      e.isDirectory()
        ? sourceText(join(dir, e.name))
        : e.name.endsWith('.ts')
          ? readFileSync(join(dir, e.name), 'utf8')
          : '',
    )
    .join('\n');
}

describe('docs/stability.md', () => {
  it("lists every public entry and executable of each package's manifest, and no other", () => {
    const declared = workspacePackages().flatMap(({ dir, name }) => {
      const manifest = manifestOf(join(ROOT, dir)) as {
        exports?: Record<string, unknown>;
        bin?: Record<string, string>;
      };
      const entries = Object.keys(manifest.exports ?? {})
        .filter((entry) => entry !== './package.json')
        .map((entry) => `${name}${entry.slice(1)} (${name})`);
      const bins = Object.keys(manifest.bin ?? {}).map((bin) => `${bin} (executable) (${name})`);
      return [...entries, ...bins];
    });
    const table = rows('stability-entries');
    expect(
      table.map(([entry = '', pkg = '']) => `${entry.replaceAll('`', '')} (${pkg})`).sort(),
    ).toEqual(declared.sort());
    for (const [entry, , level] of table) expect(LEVELS, `level of ${entry}`).toContain(level);
  });

  it('gives every name src/semconv.ts spells exactly one level, and lists no other name', () => {
    const table = rows('stability-names');
    const listed = table.map(([name = '']) => name);
    expect([...listed].sort()).toEqual([...new Set(emittedNames())].sort());
    for (const [name, , level] of table) expect(LEVELS, `level of ${name}`).toContain(level);
  });

  it('never calls a name stable that src/semconv.ts marks @experimental', () => {
    const text = readFileSync(join(ROOT, 'src/semconv.ts'), 'utf8');
    const experimental = [
      ...text.matchAll(
        /@experimental\s*\*\/\s*export const (?:ATTR|METRIC|EVENT)_\w+ =\s*'([^']+)'/g,
      ),
    ].map((m) => m[1] ?? '');
    expect(experimental.length).toBeGreaterThan(0);
    const levelOf = new Map(
      rows('stability-names').map(([name = '', , level = '']) => [name, level]),
    );
    for (const name of experimental) expect(levelOf.get(name), name).not.toMatch(/stable|^Stable$/);
  });

  it('gives every option of McpInstrumentationConfig and every variable the package reads a level', () => {
    const types = readFileSync(join(ROOT, 'src/types.ts'), 'utf8');
    const block = /export interface McpInstrumentationConfig[^{]*\{([\s\S]*?)\n\}/.exec(types)?.[1];
    const options = [...(block ?? '').matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
    expect(options.length).toBeGreaterThan(10);
    const table = rows('stability-options');
    // `enabled` is OpenTelemetry's InstrumentationConfig, which the config extends.
    const optionRows = table.filter(([option = '']) => option !== '(register entry only)');
    expect(optionRows.map(([option = '']) => option).sort()).toEqual(
      ['enabled', ...options].sort(),
    );
    for (const [option, , level] of table) expect(LEVELS, `level of ${option}`).toContain(level);
    const variables = new Set(
      sourceText(join(ROOT, 'src')).match(/OTEL_INSTRUMENTATION_MCP_[A-Z_]+/g),
    );
    const documented = new Set(table.map(([, variable = '']) => variable));
    for (const variable of variables) expect(documented, variable).toContain(variable);
  });
});
