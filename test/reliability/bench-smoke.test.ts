/**
 * `npm run bench` end to end at a tiny scale: every variant runs over both transports, the
 * table, the stdio split and the targets are printed, and each of this package's rows produces
 * the spans it is expected to. The figures themselves mean nothing at this scale; what is checked
 * is that the benchmark works and measures what it says.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SCENARIOS = ['memory/ok', 'memory/fail', 'stdio/ok', 'stdio/fail'];
/** This package's rows and the floor: each must produce the spans it is expected to. */
const ours = (v: string) => v === 'floor' || v === 'omcp' || v.startsWith('omcp-');

interface Row {
  expected: string;
  spans: { shape: string };
}

describe('npm run bench (tiny scale)', () => {
  it('prints the table for every variant and scenario, the stdio split, and a verdict for each target', () => {
    if (!existsSync(`${root}/dist/esm/index.js`))
      throw new Error('dist/ is missing: the benchmark runs the built package (npm run build)');
    // A report left by an earlier run must not stand in for this one's.
    for (const ext of ['json', 'txt'])
      rmSync(`${root}/bench/results/partial.${ext}`, { force: true });
    const run = spawnSync(process.execPath, ['bench/run.mjs'], {
      cwd: root,
      env: {
        ...process.env,
        BENCH_ONLY: 'overhead,retry',
        BENCH_ROUNDS: '2',
        BENCH_SCALE: '0.05',
      },
      encoding: 'utf8',
      timeout: 240_000,
    });
    // Exit 1 is "some target does not hold" (expected at this scale), or a crash: the report
    // checks below tell them apart.
    expect(run.error).toBeUndefined();
    expect([0, 1], run.stderr).toContain(run.status);
    const results = JSON.parse(readFileSync(`${root}/bench/results/partial.json`, 'utf8'));
    const variants: string[] = results.overhead.variants;
    const lines = run.stdout.split('\n');
    for (const scenario of SCENARIOS)
      for (const v of variants) {
        const row = lines.find((l) => l.startsWith(scenario) && l.split(/\s+/)[1] === v);
        expect(row, `${scenario} ${v}`).toBeDefined();
        const measured: Row = results.overhead.table[scenario][v];
        expect(row!.endsWith(`  ${measured.spans.shape}`), row).toBe(true);
        if (ours(v)) expect(measured.spans.shape, `${scenario} ${v}`).toBe(measured.expected);
      }
    const from = lines.findIndex((l) => l.startsWith('## Over stdio, where the overhead lands'));
    expect(from).toBeGreaterThan(0);
    const to = lines.findIndex((l, i) => i > from && l.startsWith('## '));
    const split = lines.slice(from, to).filter((l) => /^stdio\/(ok|fail) /.test(l));
    // Every variant but the baseline, with a client and a server figure.
    expect(split.length).toBe(2 * (variants.length - 1));
    for (const l of split) expect(l, l).toMatch(/ -?\d+\.\d +-?\d+\.\d$/);

    const names: string[] = results.targets.map((t: { name: string }) => t.name);
    for (const scenario of SCENARIOS) {
      expect(names).toContain(`${scenario}: omcp overhead ≤ 1.25 × floor overhead`);
      expect(names).toContain(`${scenario}: omcp overhead < autotel`);
      expect(names).toContain(`${scenario}: omcp-client overhead < traceloop`);
      expect(names).toContain(
        `${scenario}: omcp-client-spans overhead < traceloop (same output: client spans only)`,
      );
    }
    expect(names).toContain('retry: no attempt before retryNotBefore');
    for (const t of results.targets) expect(['PASS', 'FAIL', 'UNCLEAR']).toContain(t.verdict);
    const targets = run.stdout.slice(run.stdout.indexOf('## Targets'));
    expect(targets.split('\n').filter((l) => /^(PASS|FAIL|UNCLEAR) /.test(l)).length).toBe(
      results.targets.length,
    );
    // The report is written beside the JSON, from its first section to the count of targets.
    const text = readFileSync(`${root}/bench/results/partial.txt`, 'utf8');
    expect(text.startsWith('## Per-call CPU cost')).toBe(true);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^\d+\/\d+ targets hold; \d+ s$/);
    // The retry timer is real: no attempt may start before retryNotBefore at any scale.
    expect(results.retry.early).toBe(0);
  }, 300_000);
});
