/**
 * The collector configuration shipped for the compose stack, checked as far as this machine
 * allows (no collector binary here): every pipeline names components that are defined, tail
 * sampling keeps every failing trace by this package's own attribute names, and the span
 * metrics see every span, before any sampling.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ATTR_MCP_TOOL_CALL_ATTEMPTS, ATTR_MCP_TOOL_FAILURE_CLASS } from '../../src/semconv.js';
import { TOOL_FAILURE_CLASSES } from '../../packages/tool-failure/src/index.js';
import { repoPath } from './helpers.js';

type Pipeline = { receivers: string[]; processors?: string[]; exporters: string[] };
const config = parse(
  readFileSync(repoPath('observability/otel-collector/config.yaml'), 'utf8'),
) as {
  receivers: Record<string, unknown>;
  processors: Record<string, unknown>;
  exporters: Record<string, unknown>;
  connectors: Record<string, unknown>;
  service: { pipelines: Record<string, Pipeline> };
};
const pipelines = config.service.pipelines;

describe('the shipped collector configuration', () => {
  it('every pipeline names defined receivers, processors, exporters and connectors', () => {
    for (const [name, p] of Object.entries(pipelines)) {
      for (const r of p.receivers)
        expect(r in config.receivers || r in config.connectors, `${name}: ${r}`).toBe(true);
      for (const x of p.processors ?? [])
        expect(x in config.processors, `${name}: ${x}`).toBe(true);
      for (const e of p.exporters)
        expect(e in config.exporters || e in config.connectors, `${name}: ${e}`).toBe(true);
    }
    // A connector is an exporter of one pipeline and a receiver of another.
    for (const c of Object.keys(config.connectors)) {
      const signals = Object.values(pipelines);
      expect(
        signals.some((p) => p.exporters.includes(c)),
        c,
      ).toBe(true);
      expect(
        signals.some((p) => p.receivers.includes(c)),
        c,
      ).toBe(true);
    }
  });

  it('keeps every failing trace (failure class, error status, retried call) and samples the rest', () => {
    const sampling = config.processors.tail_sampling as {
      policies: Array<Record<string, Record<string, unknown>> & { name: string; type: string }>;
    };
    const byType = new Map(sampling.policies.map((p) => [p.type, p]));
    expect(byType.get('string_attribute')?.string_attribute).toEqual({
      key: ATTR_MCP_TOOL_FAILURE_CLASS,
      values: [...TOOL_FAILURE_CLASSES],
    });
    expect(byType.get('status_code')?.status_code).toEqual({ status_codes: ['ERROR'] });
    expect(byType.get('numeric_attribute')?.numeric_attribute).toMatchObject({
      key: ATTR_MCP_TOOL_CALL_ATTEMPTS,
      min_value: 2,
    });
    const rest = byType.get('probabilistic')?.probabilistic?.sampling_percentage;
    expect(rest).toBeGreaterThan(0);
    expect(rest).toBeLessThan(100);
  });

  it('span metrics and logs are never sampled; Jaeger gets only the sampled traces', () => {
    const withSampling = Object.entries(pipelines).filter(([, p]) =>
      (p.processors ?? []).includes('tail_sampling'),
    );
    expect(withSampling.map(([n]) => n)).toEqual(['traces/sampled']);
    expect(withSampling[0]![1].exporters).toEqual(['otlp_grpc/jaeger']);
    expect(pipelines.traces?.exporters).toContain('spanmetrics');
    expect(pipelines.traces?.processors ?? []).not.toContain('tail_sampling');
    expect(pipelines.logs?.processors ?? []).not.toContain('tail_sampling');
  });
});
