import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

describe('docs/performance.md', () => {
  it('holds the results of the committed record, as bench/report.mjs makes them', () => {
    const made = spawnSync(process.execPath, ['bench/report.mjs'], { cwd: root, encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const block = made.stdout.trimEnd();
    expect(block.startsWith('<!-- bench-results:start')).toBe(true);
    expect(block.endsWith('<!-- bench-results:end -->')).toBe(true);
    const doc = readFileSync(`${root}/docs/performance.md`, 'utf8');
    expect(doc.includes(block), 'run `node bench/report.mjs --write` after a full bench run').toBe(
      true,
    );
  });

  it('reads every target of the record in its table', () => {
    const record = JSON.parse(readFileSync(`${root}/bench/results/latest.json`, 'utf8'));
    const doc = readFileSync(`${root}/docs/performance.md`, 'utf8');
    expect(record.targets.length).toBeGreaterThan(20);
    for (const t of record.targets as { name: string; verdict: string }[])
      expect(doc, t.name).toContain(
        `| ${t.verdict === 'PASS' ? 'PASS' : `**${t.verdict}**`} | ${t.name} |`,
      );
  });
});
