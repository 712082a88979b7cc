import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const doc = () => readFileSync(`${root}/docs/performance.md`, 'utf8');

describe('docs/performance.md', () => {
  it('holds the results of the committed summary, as bench/report.mjs makes them', () => {
    const made = spawnSync(process.execPath, ['bench/report.mjs'], { cwd: root, encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const block = made.stdout.trimEnd();
    expect(block.startsWith('<!-- bench-results:start')).toBe(true);
    expect(block.endsWith('<!-- bench-results:end -->')).toBe(true);
    expect(
      doc().includes(block),
      'run `node bench/report.mjs --write` after a full bench run',
    ).toBe(true);
  });

  it('reads every target of the summary in its table, and gives comparisons no verdict', () => {
    const record = JSON.parse(readFileSync(`${root}/bench/results/summary.json`, 'utf8'));
    const text = doc();
    expect(record.targets.length).toBeGreaterThan(10);
    for (const t of record.targets as { name: string; verdict: string }[])
      expect(text, t.name).toContain(
        `| ${t.verdict === 'PASS' ? 'PASS' : `**${t.verdict}**`} | ${t.name} |`,
      );
    // CPU per call is judged in one process: the separate-process rows are not targets.
    const names = (record.targets as { name: string }[]).map((t) => t.name);
    for (const s of ['memory/ok', 'memory/fail'])
      expect(names).toContain(
        `${s}, in one process: omcp overhead ≤ 1.15 × mission floor overhead`,
      );
    expect(names.some((n) => /^(memory|stdio|http)\/(ok|fail): \S+ overhead/.test(n))).toBe(false);
    for (const c of record.comparisons as object[]) expect(c).not.toHaveProperty('verdict');
  });

  it('stays within 200 lines, with no history of rounds', () => {
    const text = doc();
    expect(text.split('\n').length).toBeLessThanOrEqual(200);
    expect(text).not.toMatch(/^## (What changed|Earlier rounds)/m);
  });

  it('commits at most 100 KB of bench results (full records go to bench/results/runs/)', () => {
    const dir = `${root}/bench/results`;
    const committed = readdirSync(dir).filter((f) => f !== 'runs');
    const bytes = committed.reduce((n, f) => n + statSync(`${dir}/${f}`).size, 0);
    expect(committed).toContain('summary.json');
    expect(bytes, committed.join(', ')).toBeLessThanOrEqual(100 * 1024);
    const ignored = readFileSync(`${root}/.gitignore`, 'utf8').split('\n');
    expect(ignored).toContain('bench/results/runs/');
  });
});
