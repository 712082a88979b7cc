// tier: timed (its readings, SAME and REGRESSION, are measured CPU time)
/**
 * `npm run bench:compare` at a small scale (docs/performance.md, "Comparing two builds"): the
 * built package against itself reads SAME, and against itself with a deliberate slowdown of 20 %
 * of its overhead (real CPU burnt in every measured call of build B, COMPARE_SLOWDOWN) reads
 * REGRESSION, with a ratio near the one the burn implies. Four processes of 1,500 calls per pair
 * and scenario instead of the default eight of 4,000, and, while a reading is UNCLEAR (a loaded
 * machine), two more at a time up to twelve: more pairs rather than longer runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SMALL = {
  COMPARE_PROCESSES: '4',
  COMPARE_MAX_PROCESSES: '12',
  COMPARE_CALLS: '1500',
  COMPARE_WARMUP: '300',
};

interface Scenario {
  aNs: number;
  bNs: number;
  ratio: number;
  interval: [number, number];
  reading: string;
  burnNs?: number;
}
interface CompareRecord {
  reading: string;
  processes: number;
  scenarios: { ok: Scenario; fail: Scenario };
}

/** Runs bench/compare.mjs on dist/ against itself; returns its output, exit code and record. */
function compare(env: Record<string, string>) {
  const run = spawnSync(process.execPath, ['bench/compare.mjs', 'dist', 'dist'], {
    cwd: root,
    env: { ...process.env, ...SMALL, ...env },
    encoding: 'utf8',
    timeout: 600_000,
  });
  expect(run.error).toBeUndefined();
  expect(run.stderr).toBe('');
  const record = JSON.parse(
    readFileSync(`${root}/bench/results/runs/compare.json`, 'utf8'),
  ) as CompareRecord;
  return { run, record };
}

describe('npm run bench:compare (small scale)', () => {
  beforeAll(() => {
    if (!existsSync(`${root}/dist/esm/index.js`))
      throw new Error('dist/ is missing: the comparison runs the built package (npm run build)');
  });

  it('reads SAME for a build against itself', () => {
    const { run, record } = compare({});
    expect(run.stdout).toContain('compare: SAME (B against A at ±5 %');
    expect(run.status).toBe(0);
    expect(record.processes).toBeGreaterThanOrEqual(4);
    for (const s of Object.values(record.scenarios)) {
      expect(s.reading).toBe('SAME');
      expect(s.interval[0]).toBeGreaterThanOrEqual(0.95);
      expect(s.interval[1]).toBeLessThanOrEqual(1.05);
      expect(s.burnNs).toBeUndefined();
    }
    // Each scenario's row, with the reading the record holds.
    for (const name of ['ok', 'fail'])
      expect(run.stdout).toMatch(new RegExp(`^memory/${name} .* SAME$`, 'm'));
  }, 620_000);

  it('reads REGRESSION for the same build slowed by 20 % of its overhead', () => {
    const { run, record } = compare({ COMPARE_SLOWDOWN: '0.2' });
    expect(run.stdout).toContain('compare: REGRESSION (B against A at ±5 %');
    expect(run.status).toBe(1);
    for (const s of Object.values(record.scenarios)) {
      expect(s.reading).toBe('REGRESSION');
      expect(s.interval[0]).toBeGreaterThan(1.05);
      // The ratio found is the one the burn implies: B's overhead is A's plus what it burnt,
      // within 0.1 plus the width of the interval the comparison itself reports (wider on a
      // loaded machine, where the burn, calibrated before the run, and A's overhead in the run
      // drift apart).
      expect(s.burnNs).toBeGreaterThan(0);
      const implied = 1 + (s.burnNs ?? 0) / s.aNs;
      const slack = 0.1 + (s.interval[1] - s.interval[0]);
      expect(Math.abs(s.ratio - implied)).toBeLessThan(slack);
    }
  }, 620_000);
});
