/**
 * `npm run bench` end to end at a tiny scale: every variant runs over in-memory and stdio, the
 * baseline, both floors and this package also over Streamable HTTP (SDK 2.x, 2026-07-28
 * stateless); the table, the split, the scaling and allocation tables and the targets are
 * printed; each of this package's rows produces the spans it is expected to, and the mission
 * floor emits what this package emits per call. The figures themselves mean nothing at this
 * scale; what is checked is that the benchmark works and measures what it says.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LOCAL = ['memory/ok', 'memory/fail', 'stdio/ok', 'stdio/fail'];
const SCENARIOS = [...LOCAL, 'http/ok', 'http/fail'];
const HTTP_ROWS = ['baseline', 'floor', 'mission-floor', 'omcp'];
/** This package's rows and the floors: each must produce the spans it is expected to. */
const ours = (v: string) =>
  v === 'floor' || v.startsWith('mission-floor') || v === 'omcp' || v.startsWith('omcp-');

interface Checked {
  shape: string;
  clientAttributes?: string[];
  serverAttributes?: string[];
  failureObject?: { class: string; code: string; correlationIsTraceId: boolean };
}
interface Row {
  expected: string;
  spans: Checked;
}

/**
 * Runs a bench script at a tiny scale (`env` sets it, and keeps its record untouched); it must
 * exit 0 with nothing on stderr. Returns the section of its output for each in-memory scenario.
 */
function runTiny(script: string, env: Record<string, string>): Record<'ok' | 'fail', string> {
  const run = spawnSync(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.error).toBeUndefined();
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const section = (scenario: string): string =>
    run.stdout.split(`## memory/${scenario}:`)[1]?.split('## ')[0] ?? '';
  return { ok: section('ok'), fail: section('fail') };
}

describe('npm run bench (tiny scale)', () => {
  it('prints the table for every variant and scenario, the stdio split, and a verdict for each target', () => {
    if (!existsSync(`${root}/dist/esm/index.js`))
      throw new Error('dist/ is missing: the benchmark runs the built package (npm run build)');
    // A report left by an earlier run must not stand in for this one's.
    for (const ext of ['json', 'txt'])
      rmSync(`${root}/bench/results/runs/partial.${ext}`, { force: true });
    const run = spawnSync(process.execPath, ['bench/run.mjs'], {
      cwd: root,
      env: {
        ...process.env,
        BENCH_ONLY: 'overhead,inprocess,scaling,alloc,retry',
        BENCH_INPROC_CALLS: '100',
        BENCH_INPROC_PROCESSES: '2',
        BENCH_ROUNDS: '2',
        BENCH_SCALE: '0.05',
        BENCH_ALLOC_CALLS: '300',
        BENCH_ALLOC_ROUNDS: '1',
        // Two generations of worker processes, one round each: the second generation starts
        // after the first has stopped, and the intervals resample the two.
        BENCH_PROCESSES: '2',
      },
      encoding: 'utf8',
      // Generous: on a loaded shared machine the tiny run takes several minutes.
      timeout: 600_000,
    });
    // Exit 1 is "some target does not hold" (expected at this scale), or a crash: the report
    // checks below tell them apart.
    expect(run.error).toBeUndefined();
    expect([0, 1], run.stderr).toContain(run.status);
    const results = JSON.parse(readFileSync(`${root}/bench/results/runs/partial.json`, 'utf8'));
    const variants: string[] = results.overhead.variants;
    const lines = run.stdout.split('\n');
    // The separate-process table (the in-process one, printed first, has rows of the same names).
    const tableAt = lines.findIndex((l) => l.startsWith('## Per-call CPU cost'));
    expect(tableAt).toBeGreaterThan(0);
    const table = lines.slice(
      tableAt,
      lines.findIndex((l, i) => i > tableAt && l.startsWith('## ')),
    );
    for (const scenario of SCENARIOS)
      for (const v of scenario.startsWith('http') ? HTTP_ROWS : variants) {
        const row = table.find((l) => l.startsWith(scenario) && l.split(/\s+/)[1] === v);
        expect(row, `${scenario} ${v}`).toBeDefined();
        const measured: Row = results.overhead.table[scenario][v];
        expect(row!.endsWith(`  ${measured.spans.shape}`), row).toBe(true);
        if (ours(v)) expect(measured.spans.shape, `${scenario} ${v}`).toBe(measured.expected);
      }
    expect(variants).toContain('mission-floor');
    // The mission floor does this package's per-call work by hand: the same span attributes on
    // both sides, the same failure object (correlationId = trace ID) and, in-memory where both
    // sides record here, the same metrics.
    // Its variant with the server span at the transport (as this package's is) does the same,
    // over in-memory and stdio.
    expect(variants).toContain('mission-floor-tap');
    for (const scenario of SCENARIOS) {
      const mine: Checked = results.overhead.table[scenario].omcp.spans;
      const floors = scenario.startsWith('http')
        ? ['mission-floor']
        : ['mission-floor', 'mission-floor-tap'];
      for (const floor of floors) {
        const hand: Checked = results.overhead.table[scenario][floor].spans;
        expect(hand.clientAttributes, `${scenario} ${floor}`).toEqual(mine.clientAttributes);
        expect(hand.serverAttributes, `${scenario} ${floor}`).toEqual(mine.serverAttributes);
        if (scenario.endsWith('/fail')) {
          expect(mine.failureObject, scenario).toMatchObject({ correlationIsTraceId: true });
          expect(hand.failureObject, `${scenario} ${floor}`).toEqual(mine.failureObject);
        }
      }
    }
    const memory = results.overhead.spans;
    expect(memory['mission-floor'].memory.metrics).toEqual(memory.omcp.memory.metrics);
    expect(memory['mission-floor-tap'].memory.metrics).toEqual(memory.omcp.memory.metrics);
    expect(memory.omcp.memory.metrics).toEqual([
      'mcp.client.operation.duration',
      'mcp.client.tool.failures',
      'mcp.server.operation.duration',
      'mcp.server.tool.failures',
    ]);

    const from = lines.findIndex((l) =>
      l.startsWith('## Over stdio and Streamable HTTP, where the overhead lands'),
    );
    expect(from).toBeGreaterThan(0);
    const to = lines.findIndex((l, i) => i > from && l.startsWith('## '));
    const split = lines.slice(from, to);
    // Every variant but the baseline, with a client and a server figure.
    expect(split.filter((l) => /^stdio\/(ok|fail) /.test(l)).length).toBe(
      2 * (variants.length - 1),
    );
    expect(split.filter((l) => /^http\/(ok|fail) /.test(l)).length).toBe(
      2 * (HTTP_ROWS.length - 1),
    );
    for (const l of split.filter((x) => /^(stdio|http)\//.test(x)))
      expect(l, l).toMatch(/ -?\d+\.\d +-?\d+\.\d$/);

    // Each round ran in its own generation of processes: the spread table has both.
    expect(results.settings.processes).toBe(2);
    expect(lines).toContain(
      "## Spread between worker processes (µs overhead per call, the median of each of the 2 processes' rounds; lowest–highest)",
    );

    // In one process: every variant's row in both scenarios, and the comparisons it adds.
    const inproc = lines.findIndex((l) => l.startsWith('## In one process'));
    expect(inproc).toBeGreaterThan(0);
    const inprocRows = lines.slice(
      inproc,
      lines.findIndex((l, i) => i > inproc && l.startsWith('## ')),
    );
    expect(results.inprocess.variants).toEqual([
      'baseline',
      'mission-floor',
      'mission-floor-tap',
      'omcp',
      'omcp-again',
      'omcp-noobjects',
    ]);
    for (const scenario of ['memory/ok', 'memory/fail'])
      for (const v of results.inprocess.variants)
        expect(
          inprocRows.some((l) => l.startsWith(scenario) && l.split(/\s+/)[1] === v),
          `${scenario} ${v}`,
        ).toBe(true);
    // CPU per call is judged in one process: its two ratios are targets; the second pair of the
    // same code is a comparison.
    const compared: string[] = results.comparisons.map((c: { name: string }) => c.name);
    const judged: string[] = results.targets.map((t: { name: string }) => t.name);
    for (const scenario of ['memory/ok', 'memory/fail']) {
      expect(judged).toContain(
        `${scenario}, in one process: omcp overhead ≤ 1.15 × mission floor overhead`,
      );
      expect(compared).toContain(
        `${scenario}, in one process: omcp-again overhead / omcp (a second pair of the same code)`,
      );
    }

    // The scaling table: four levels of each sweep, each with its growth and bytes.
    for (const level of ['1 in flight', '10 in flight', '100 in flight', '1000 in flight'])
      expect(
        lines.some((l) => l.startsWith('concurrency') && l.includes(level)),
        level,
      ).toBe(true);
    for (const level of ['1 KB result', '10 KB result', '100 KB result', '1 MB result'])
      expect(
        lines.some((l) => l.startsWith('payload') && l.includes(level)),
        level,
      ).toBe(true);
    // The allocation table has the mission floor's row, ok and fail.
    for (const scenario of ['memory/ok', 'memory/fail'])
      expect(
        lines.some((l) => l.startsWith(scenario) && l.split(/\s+/)[1] === 'mission-floor'),
      ).toBe(true);

    // The separate-process rows are context: printed as comparisons with their figures, never
    // as targets, and no comparison carries a verdict word.
    const names: string[] = results.targets.map((t: { name: string }) => t.name);
    for (const scenario of LOCAL) {
      expect(compared).toContain(`${scenario}: omcp overhead / mission floor overhead`);
      if (scenario.endsWith('/ok'))
        expect(compared).toContain(`${scenario}: omcp overhead / floor overhead`);
      expect(compared).toContain(`${scenario}: omcp overhead / autotel`);
      expect(compared).toContain(
        `${scenario}: omcp-client-spans overhead / traceloop (same output: client spans only)`,
      );
      expect(compared).toContain(`${scenario}: omcp-client overhead / traceloop (own row)`);
    }
    expect(names.some((n) => /^(memory|stdio|http)\/(ok|fail): \S+ overhead/.test(n))).toBe(false);
    const comparisonsAt = run.stdout.indexOf('## Comparisons, not targets');
    const comparisonLines = run.stdout
      .slice(comparisonsAt, run.stdout.indexOf('## Targets'))
      .split('\n')
      .slice(1)
      .filter((l) => l.trim() !== '');
    expect(comparisonLines.length).toBe(results.comparisons.length);
    for (const l of comparisonLines) expect(l, l).not.toMatch(/\b(PASS|FAIL|UNCLEAR|SAME|APART)\b/);
    for (const scenario of ['memory/ok', 'memory/fail'])
      expect(names).toContain(
        `${scenario}: omcp bytes allocated per call ≤ 1.15 × mission floor's (over baseline)`,
      );
    for (const level of ['10 in flight', '100 in flight', '1000 in flight'])
      expect(names).toContain(
        `scaling concurrency, ${level}: omcp overhead per call ≤ 1.10 × at 1 in flight`,
      );
    for (const level of ['10 KB result', '100 KB result', '1 MB result'])
      expect(names).toContain(
        `scaling payload, ${level}: omcp overhead per call ≤ 1.10 × at 1 KB result`,
      );
    expect(names).toContain('retry: no attempt before retryNotBefore');
    for (const t of results.targets) expect(['PASS', 'FAIL', 'UNCLEAR']).toContain(t.verdict);
    const targets = run.stdout.slice(run.stdout.indexOf('## Targets'));
    expect(targets.split('\n').filter((l) => /^(PASS|FAIL|UNCLEAR) /.test(l)).length).toBe(
      results.targets.length,
    );
    // The report is written beside the JSON, from its first section to the count of targets.
    const text = readFileSync(`${root}/bench/results/runs/partial.txt`, 'utf8');
    expect(text.startsWith('## In one process')).toBe(true);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^\d+\/\d+ targets hold; \d+ s$/);
    // The retry timer is real: no attempt may start before retryNotBefore at any scale.
    expect(results.retry.early).toBe(0);
  }, 620_000);

  it('prices every knock-out against an unmodified copy, each edit still matching the build', () => {
    // npm run bench:knockouts at a tiny scale: every knock-out's edits must apply to dist/ exactly
    // once (the script stops otherwise), and both scenarios get a row per knock-out.
    const sections = runTiny('bench/knockouts.mjs', {
      KNOCKOUT_PARTIAL: '1',
      KNOCKOUT_PROCESSES: '1',
      KNOCKOUT_CALLS: '100',
    });
    const source = readFileSync(`${root}/bench/knockouts.mjs`, 'utf8');
    const names = [...source.matchAll(/^ {4}name: '([a-z-]+)',$/gm)].map((m) => m[1] as string);
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const section of Object.values(sections)) {
      expect(section).toMatch(/an unmodified copy -?\d+\.\d µs/);
      for (const name of names)
        expect(section).toMatch(
          new RegExp(`^${name} +-?\\d+\\.\\d +\\(-?\\d+\\.\\d – -?\\d+\\.\\d\\) `, 'm'),
        );
    }
    // The copies are removed when the run ends.
    expect(existsSync(`${root}/bench/.knockouts`)).toBe(false);
  }, 150_000);

  it('attributes a profile of both rows to their entry points, this package and the mission floor alike', () => {
    // npm run bench:attribute at a tiny scale: each scenario charges time to this package and to
    // the mission floor, and files it under the entry points each side has.
    const sections = runTiny('bench/attribute.mjs', {
      ATTRIBUTE_PARTIAL: '1',
      ATTRIBUTE_PROCESSES: '1',
      ATTRIBUTE_CALLS: '200',
    });
    for (const section of Object.values(sections)) {
      expect(section.trimStart()).toMatch(
        /^this package's own time \d+\.\d\d µs a call, the mission floor's \d+\.\d\d µs/,
      );
      expect(section).toMatch(/^omcp +\d+\.\d\d$/m);
      expect(section).toMatch(/^mission-floor +\d+\.\d\d$/m);
      // Entry points of both sides of a call, each with what ran under it.
      for (const entry of [
        'request (patches/protocol.js',
        'tappedOnMessage (server/transport-tap.js',
        'tappedSend (server/transport-tap.js',
        'c.callTool (lib/mission-floor.mjs',
      ])
        expect(section).toContain(entry);
    }
  }, 150_000);
});
