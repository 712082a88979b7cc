/**
 * The gateway section of `npm run bench` at a tiny scale (two loads, two rounds, a few dozen
 * calls a round): every row relays the same stdio server and every answer comes back as sent
 * (the driver checks each echo), each row's table line is printed at each load with its
 * latency, throughput and RSS, every target gets a verdict, and the proxy rows really traced
 * (the local OTLP receiver got their spans). The figures of such a run mean nothing.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBenchSection } from './bench-section.js';
import { binPath } from '../../scripts/workspace.mjs';

const ROWS = [
  'direct',
  'omcp',
  'omcp-untraced',
  'omcp-breaker-retry',
  'omcp-auth',
  'supergateway',
  'mcp-proxy',
];
const LOADS = ['1', '16'];
const ROUNDS = 2;
const RECORD = 'partial-gateway';

interface Run {
  ok: number;
  errors: number;
  p50: number;
  p99: number;
  cpuNs: number;
  rss: number;
}

describe('npm run bench, the gateway section (tiny scale)', () => {
  it('relays through every row at every load, prints each row and a verdict for each target', () => {
    if (!existsSync(binPath('mcp-failure-proxy')))
      throw new Error('dist/ is missing: the gateway section runs the built proxy (npm run build)');
    const run = runBenchSection(
      RECORD,
      {
        BENCH_ONLY: 'gateway',
        BENCH_SCALE: '0.01',
        BENCH_GATEWAY_ROUNDS: String(ROUNDS),
        BENCH_GATEWAY_LOADS: LOADS.join(','),
      },
      170_000,
    );
    const out = run.stdout;
    expect(out).toContain('## The gateway');
    for (const load of LOADS) {
      const table = out.split(`\n${load} in flight (`)[1]?.split(' in flight (')[0] ?? '';
      for (const row of ROWS)
        // Every call of every round answered with the text it sent: "none" failed.
        expect(table, `${row} at ${load}`).toMatch(
          new RegExp(`\\n  ${row} +[\\d.]+ +[\\d.]+ .* (\\d+|-) +\\d+ +\\d+  none\\n`),
        );
      // The relay untraced is judged against both bridges; the other rows are context.
      expect(out).toMatch(
        new RegExp(
          `\\n(PASS|FAIL|UNCLEAR) +gateway, ${load} in flight: omcp-untraced p50 and p99 ≤ both bridges': p50 [\\d.]+× supergateway .* p99 [\\d.]+× mcp-proxy`,
        ),
      );
      for (const row of ['omcp', 'omcp-breaker-retry', 'omcp-auth'])
        expect(out).not.toMatch(new RegExp(`gateway, ${load} in flight: ${row} p50`));
    }
    // With one call in flight, what tracing adds to the relay is judged.
    expect(out).toMatch(
      /\n(PASS|FAIL|UNCLEAR) +gateway, 1 in flight: tracing adds ≤ 0\.25 ms to the relay's p50: [+-][\d.]+ ms \(95% interval -?[\d.]+ to -?[\d.]+\)/,
    );
    const record = run.record<{
      gateway: {
        settings: { calls: Record<string, number> };
        rounds: Record<string, Record<string, Run[]>>;
        telemetry: { traces: { requests: number; bytes: number } };
      };
    }>();
    const g = record.gateway;
    for (const row of ROWS) {
      let cpuNs = 0;
      for (const load of LOADS) {
        const runs = g.rounds[load]?.[row] ?? [];
        expect(runs).toHaveLength(ROUNDS);
        for (const r of runs) {
          expect(r.ok, `${row} at ${load}`).toBe(g.settings.calls[load]);
          expect(r.p99).toBeGreaterThanOrEqual(r.p50);
          // The tree measured is alive: it holds memory (its CPU time is read in 10 ms ticks).
          expect(r.rss).toBeGreaterThan(10 * 2 ** 20);
          cpuNs += r.cpuNs;
        }
      }
      expect(cpuNs, `${row} used CPU`).toBeGreaterThan(0);
    }
    // The proxy rows trace while they relay: their spans reached the local receiver.
    expect(g.telemetry.traces.requests).toBeGreaterThan(0);
    expect(g.telemetry.traces.bytes).toBeGreaterThan(0);
  }, 180_000);
});
