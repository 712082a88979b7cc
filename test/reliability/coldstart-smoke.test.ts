/**
 * The cold-start section of `npm run bench` at a tiny scale (one round, the per-line row of
 * Node.js 20 only): every row starts the server and gets the tool's answer, the register entry and
 * the NodeSDK path export the server's spans to a local OTLP receiver, the per-line row runs in a
 * fresh install of the packed tarballs, and the tables, the profile by package and the target's
 * verdict are printed. The figures mean nothing at this scale; what is checked is that the section
 * measures what it says.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, removeRecord, runBenchSection } from './bench-section.js';

const NAME = 'coldstart-smoke';
const ROWS = [
  'bare',
  'register',
  'register-all',
  'nodesdk',
  'sdk-node',
  'loader-hook',
  'traceloop',
];

interface Record {
  coldstart: {
    pairs: number;
    lines: Array<{
      node: number;
      otel: string;
      over: number;
      ms: { bare: number[]; register: number[] };
    }>;
    ms: { [row: string]: number[] };
    rows: { [row: string]: { median: number; over?: number; interval?: [number, number] } };
    checked: { [row: string]: { answer: string; spans: string[] } };
    profiles: { [row: string]: { profiles: number; rows: Array<{ owner: string; ms: number }> } };
  };
  targets: Array<{ name: string; verdict: string }>;
}

describe('npm run bench, cold-start section (tiny scale)', () => {
  afterAll(() => removeRecord(NAME));

  it('every row answers, the instrumented rows export the server spans, and the target gets a verdict', () => {
    if (!existsSync(`${ROOT}/dist/esm/index.js`))
      throw new Error('dist/ is missing: the benchmark runs the built package (npm run build)');
    const run = runBenchSection(
      NAME,
      { BENCH_ONLY: 'coldstart', BENCH_COLDSTART_PAIRS: '1', BENCH_COLDSTART_LINES: '20:2.x' },
      220_000,
    );
    expect(run.stderr).toBe('');
    const out = run.stdout;
    expect(out).toContain('## Cold start');
    expect(out).toMatch(/load average before: \d/);

    const record = run.record<Record>();
    const c = record.coldstart;
    expect(Object.keys(c.rows)).toEqual(ROWS);
    for (const row of ROWS) {
      // The checking run and the timed run of each row got the tool's answer.
      expect(c.checked[row]?.answer, row).toBe('cold');
      expect(c.ms[row], row).toHaveLength(1);
      expect(c.ms[row]![0], row).toBeGreaterThan(0);
      expect(out, row).toMatch(new RegExp(`^check ${row}: answer "cold"`, 'm'));
    }
    // The register entry and the NodeSDK path trace the server (its tools/call span reached
    // the receiver); sdk-node alone and the no-op hook instrument nothing.
    for (const row of ['register', 'register-all', 'nodesdk'])
      expect(c.checked[row]?.spans, row).toContain('tools/call echo');
    for (const row of ['bare', 'sdk-node', 'loader-hook'])
      expect(c.checked[row]?.spans).toEqual([]);
    // Each row but bare is read against bare, round by round.
    for (const row of ROWS.slice(1)) {
      const r = c.rows[row]!;
      expect(r.over, row).toBeCloseTo(c.ms[row]![0]! - c.ms.bare![0]!, 6);
      expect(r.interval, row).toHaveLength(2);
      expect(out, row).toMatch(/ms \(95% interval -?\d+ to -?\d+\)/);
    }
    // The profile by package: both starts profiled, this package's own code among the owners.
    expect(c.profiles.bare?.profiles).toBeGreaterThan(0);
    expect(c.profiles.register?.rows.map((r) => r.owner)).toContain('@omcp/instrumentation-mcp');
    expect(out).toContain('CPU self time by package');
    // The per-line row: one pair in the user's project, read against its own bare start.
    const [line, ...others] = c.lines;
    expect(others).toEqual([]);
    expect(line).toMatchObject({ node: 20, otel: '2.x' });
    expect(line!.ms.bare).toHaveLength(1);
    expect(line!.over).toBeCloseTo(line!.ms.register[0]! - line!.ms.bare[0]!, 6);
    expect(out).toMatch(/^Node\.js 20, OpenTelemetry JS 2\.x \(v20\.\d+\.\d+\) +\d+ +[+-]\d+ ms/m);
    const verdict = record.targets.find((t) => t.name.startsWith('cold start on Node.js 20 (2.x)'));
    expect(['PASS', 'FAIL', 'UNCLEAR']).toContain(verdict?.verdict);
    expect(out).toMatch(
      /^(PASS|FAIL|UNCLEAR) +cold start on Node\.js 20 \(2\.x\): the register entry adds ≤ 150 ms/m,
    );
    // Only the per-line rows are targets: the rows in this repository's tree are context.
    expect(record.targets.filter((t) => t.name.startsWith('cold start')).length).toBe(1);
  }, 240_000);
});
