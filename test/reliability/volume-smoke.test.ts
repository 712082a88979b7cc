/**
 * The telemetry volume section of `npm run bench` at a tiny scale: every variant, encoding and
 * call is printed; the byte counter saw this package's spans, metrics and log records (and no
 * log record for an ok call); the failing call's extra bytes are listed field by field and add
 * up to the measured difference; the shipped tail-sampling policy keeps every failing trace
 * and no ok trace by a deterministic policy; every target gets a verdict.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, runBenchSection } from './bench-section.js';

const VARIANTS = ['omcp', 'omcp-client-spans', 'autotel', 'traceloop'];
const ENCODINGS = ['protobuf', 'json'];
const RECORD = 'partial-volume';

interface Cell {
  spans: number;
  metricExport: number;
  logs: number;
}
interface Sampling {
  traces: number;
  keptByPolicy: number;
}

describe('npm run bench, the telemetry volume section (tiny scale)', () => {
  it('counts every signal in both encodings, lists the failing call field by field, and gives each target a verdict', () => {
    if (!existsSync(`${ROOT}/dist/esm/index.js`))
      throw new Error(
        'dist/ is missing: the volume section runs the built package (npm run build)',
      );
    const run = runBenchSection(
      RECORD,
      { BENCH_ONLY: 'volume', BENCH_SCALE: '0.1', BENCH_VOLUME_CALLS: '20' },
      170_000,
    );
    const out = run.stdout;
    for (const e of ENCODINGS)
      for (const v of VARIANTS)
        for (const s of ['ok', 'fail'])
          expect(out).toMatch(new RegExp(`\\n${e} +${v} +${s} +\\d+ +\\(\\d+–\\d+\\) +\\d+`));
    for (const e of ENCODINGS)
      for (const s of ['ok', 'fail']) {
        // Against autotel a target; against Traceloop the same figures as context, no verdict.
        expect(out).toMatch(
          new RegExp(
            `\\n(PASS|FAIL|UNCLEAR) +volume ${e}/${s}: omcp span bytes per call < autotel's \\(same output, equal information\\): \\d+ B vs \\d+ B at equal information`,
          ),
        );
        expect(out).toMatch(
          new RegExp(
            `\\n  context, ${e}/${s}: omcp-client-spans against traceloop: \\d+ B vs \\d+ B at equal information`,
          ),
        );
        expect(out).not.toMatch(new RegExp(`volume ${e}/${s}: omcp-client-spans span bytes`));
      }
    const record = run.record<{
      volume: {
        summary: {
          cells: Record<string, Record<string, Record<'ok' | 'fail', Cell>>>;
          equal: Record<
            string,
            Record<
              string,
              Record<
                'ok' | 'fail',
                {
                  ours: number;
                  peer: number;
                  oursOnly: { bytes: number; facts: string[] };
                  peerOnly: { bytes: number; facts: string[] };
                }
              >
            >
          >;
          extra: {
            rows: Array<{ field: string }>;
            listed: Record<string, number>;
            measured: Record<string, number>;
          };
        };
        runs: Record<string, { json: Record<'ok' | 'fail', Array<{ sampling: Sampling }>> }>;
      };
    }>();
    const { cells, extra, equal } = record.volume.summary;
    // At equal information each side loses exactly the facts the other lacks: Traceloop its
    // payload, this package what Traceloop does not record; the shared facts stay on both sides.
    const tl = equal.traceloop?.protobuf?.ok;
    expect(tl?.peerOnly.facts).toEqual(expect.arrayContaining(['arguments', 'result']));
    expect(tl?.oursOnly.facts).toEqual(expect.arrayContaining(['protocol version', 'request id']));
    expect(tl?.oursOnly.facts).not.toContain('tool name');
    expect((tl?.ours ?? 0) + (tl?.oursOnly.bytes ?? 0)).toBeCloseTo(
      cells['omcp-client-spans']?.protobuf?.ok.spans ?? 0,
      6,
    );
    expect(tl?.ours).toBeGreaterThan(0);
    for (const e of ENCODINGS) {
      // This package's three signals reached the counter, in both encodings.
      expect(cells.omcp?.[e]?.fail.spans).toBeGreaterThan(0);
      expect(cells.omcp?.[e]?.fail.metricExport).toBeGreaterThan(0);
      expect(cells.omcp?.[e]?.fail.logs).toBeGreaterThan(0);
      expect(cells.omcp?.[e]?.ok.logs).toBe(0);
      expect(cells.omcp?.[e]?.fail.spans).toBeGreaterThan(cells.omcp?.[e]?.ok.spans ?? Infinity);
      // JSON spells out what protobuf encodes in binary.
      expect(cells.omcp?.json?.ok.spans).toBeGreaterThan(cells.omcp?.protobuf?.ok.spans ?? 0);
      // The listed fields account for the measured difference (names and durations aside).
      expect(Math.abs((extra.listed[e] ?? 0) - (extra.measured[e] ?? 0))).toBeLessThan(
        0.1 * (extra.measured[e] ?? 0),
      );
    }
    expect(extra.rows.map((r) => r.field)).toEqual(
      expect.arrayContaining(['mcp.tool.failure.class', 'mcp.tool.failure.correlation_id']),
    );
    const sampling = record.volume.runs.omcp?.json;
    expect(sampling?.fail[0]?.sampling.keptByPolicy).toBe(sampling?.fail[0]?.sampling.traces);
    expect(sampling?.ok[0]?.sampling.keptByPolicy).toBe(0);
    expect(out).toContain('through the shipped tail-sampling policy');
  }, 180_000);
});
