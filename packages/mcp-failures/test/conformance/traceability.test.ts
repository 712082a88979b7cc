import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOL_FAILURE_RULES } from '../../../tool-failure/src/index.js';

const root = new URL('../../../../', import.meta.url);
const doc = readFileSync(new URL('docs/conformance.md', root), 'utf8');

interface Row {
  ruleId: string;
  file: string;
  title: string;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function rows(): Row[] {
  const out: Row[] = [];
  for (const line of doc.split('\n')) {
    const m = /^\|.*\|\s*`([A-Z][A-Z-]+)`\s*\|\s*`([^`]+)`\s*›\s*(.+?)\s*\|\s*$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined && m[3] !== undefined)
      out.push({ ruleId: m[1], file: m[2], title: m[3] });
  }
  return out;
}

describe('docs/conformance.md traceability', () => {
  const table = rows();

  it('has rows', () => {
    expect(table.length).toBeGreaterThanOrEqual(20);
  });

  it('every row names a test file that exists and a test with exactly that title', () => {
    for (const row of table) {
      const path = new URL(row.file, root);
      expect(existsSync(path), `${row.file} (row ${row.ruleId})`).toBe(true);
      const source = readFileSync(path, 'utf8');
      expect(source.includes(`'${row.title}'`), `test "${row.title}" in ${row.file}`).toBe(true);
      // And a test is declared with it: `it('<title>'`, or `it(title('<id>'))` where the file
      // keeps its titles in a table (the title alone could sit in the table with no test left).
      const declared = new RegExp(
        `\\bit\\(\\s*(?:'${escapeRegExp(row.title)}'|title\\('${row.ruleId}'\\))`,
      );
      expect(declared.test(source), `it(...) for "${row.title}" in ${row.file}`).toBe(true);
      expect(
        row.title.startsWith(`[${row.ruleId}]`),
        `title of ${row.ruleId} starts with its id`,
      ).toBe(true);
    }
  });

  it('every rule the reader can report has a row', () => {
    const ids = new Set(table.map((r) => r.ruleId));
    for (const rule of Object.values(TOOL_FAILURE_RULES)) expect(ids, rule.id).toContain(rule.id);
  });

  it('rule ids are unique per row', () => {
    const ids = table.map((r) => r.ruleId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
