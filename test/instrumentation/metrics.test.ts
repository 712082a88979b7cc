import { describe, expect, it } from 'vitest';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { FailureTally } from '../../src/shared/metrics.js';
import { ToolFailureError } from '../../packages/tool-failure/src/index.js';
import { McpServer, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();

function failingServer(): McpServer {
  const server = new McpServer({ name: 'm', version: '1' });
  server.registerTool('gov', {}, async () => {
    throw new ToolFailureError({ class: 'governance', code: 'policy_blocked' });
  });
  server.registerTool('odd', {}, async () => {
    throw new ToolFailureError({
      class: 'capability',
      code: `tenant_${Math.random().toString(36).slice(2)}`,
    });
  });
  server.registerTool('listed', {}, async () => {
    throw new ToolFailureError({ class: 'capability', code: 'quota_exceeded' });
  });
  server.registerTool('ok', {}, async () => ({ content: [] }));
  return server;
}

describe('metrics', () => {
  it('records operation durations in seconds with the convention buckets and low-cardinality attributes', async () => {
    const { client, close } = await connectPair(failingServer());
    await client.callTool({ name: 'ok', arguments: {} });
    await client.callTool({ name: 'gov', arguments: {} });
    await close();
    t.metricExporter.reset();
    await t.reader.forceFlush();
    const all = t.metricExporter
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((s) => s.metrics);
    const server = all.find((m) => m.descriptor.name === 'mcp.server.operation.duration')!;
    expect(server.descriptor.unit).toBe('s');
    expect(server.dataPointType).toBe(DataPointType.HISTOGRAM);
    const okPoint = server.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'ok')!;
    expect((okPoint.value as { buckets: { boundaries: number[] } }).buckets.boundaries).toEqual([
      0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
    ]);
    expect(okPoint.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'ok',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'inproc',
      'mcp.protocol.version': '2025-11-25',
    });
    const govPoint = server.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'gov')!;
    expect(govPoint.attributes).toMatchObject({
      'error.type': 'tool_error',
      'mcp.tool.failure.class': 'governance',
    });
    const clientMetric = all.find((m) => m.descriptor.name === 'mcp.client.operation.duration')!;
    expect(
      clientMetric.dataPoints.some((p) => p.attributes['mcp.tool.failure.class'] === 'governance'),
    ).toBe(true);
    for (const m of [server, clientMetric]) {
      for (const p of m.dataPoints) {
        expect(
          Object.keys(p.attributes).filter((k) =>
            /session|request\.id|correlation|arguments|result/.test(k),
          ),
        ).toEqual([]);
      }
    }
  });

  it('counts failures by tool, class and code on both sides, with unknown codes as _OTHER', async () => {
    const before = await t.metric('mcp.server.tool.failures');
    const count = (points: typeof before, tool: string, code: string) =>
      points
        .filter(
          (p) =>
            p.attributes['gen_ai.tool.name'] === tool &&
            p.attributes['mcp.tool.failure.code'] === code,
        )
        .reduce((n, p) => n + Number(p.value), 0);
    const { client, close } = await connectPair(failingServer());
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'odd', arguments: {} });
    await client.callTool({ name: 'gov', arguments: {} });
    await close();
    const server = await t.metric('mcp.server.tool.failures');
    const clientSide = await t.metric('mcp.client.tool.failures');
    expect(count(server, 'odd', '_OTHER') - count(before, 'odd', '_OTHER')).toBe(3);
    expect(
      server.filter((p) => String(p.attributes['mcp.tool.failure.code']).startsWith('tenant_')),
    ).toEqual([]);
    expect(count(server, 'gov', 'policy_blocked') - count(before, 'gov', 'policy_blocked')).toBe(1);
    expect(count(clientSide, 'odd', '_OTHER')).toBeGreaterThanOrEqual(3);
    const govPoint = server.find((p) => p.attributes['gen_ai.tool.name'] === 'gov');
    expect(govPoint?.attributes).toEqual({
      'error.type': 'tool_error',
      'gen_ai.tool.name': 'gov',
      'mcp.tool.failure.class': 'governance',
      'mcp.tool.failure.code': 'policy_blocked',
    });
  });

  it('reports allow-listed codes by name', async () => {
    t.instrumentation.setConfig({ metricCodeAllowList: ['quota_exceeded'] });
    const { client, close } = await connectPair(failingServer());
    await client.callTool({ name: 'listed', arguments: {} });
    await close();
    t.instrumentation.setConfig({});
    const server = await t.metric('mcp.server.tool.failures');
    expect(server.some((p) => p.attributes['mcp.tool.failure.code'] === 'quota_exceeded')).toBe(
      true,
    );
  });
});

describe('failure counters (counted in-process, reported at collection)', () => {
  async function collect(temporality: AggregationTemporality, limit?: number) {
    const exporter = new InMemoryMetricExporter(temporality);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const meter = provider.getMeter('tally-test');
    const tally = new FailureTally(limit);
    meter
      .createObservableCounter('failures', { unit: '{failure}' })
      .addCallback((r) => tally.observe(r));
    const points = async () => {
      exporter.reset();
      await reader.forceFlush();
      const metric = exporter.getMetrics().at(-1)?.scopeMetrics[0]?.metrics[0];
      return metric === undefined ? [] : metric.dataPoints;
    };
    return { tally, points, provider };
  }

  it('exports a monotonic sum per tool, class and code, cumulative across collections', async () => {
    const { tally, points, provider } = await collect(AggregationTemporality.CUMULATIVE);
    tally.add('a', 'reliability', 'timeout');
    tally.add('a', 'reliability', 'timeout');
    tally.add('b', undefined, undefined);
    let p = await points();
    expect(p.map((x) => [x.attributes, x.value])).toEqual([
      [
        {
          'error.type': 'tool_error',
          'gen_ai.tool.name': 'a',
          'mcp.tool.failure.class': 'reliability',
          'mcp.tool.failure.code': 'timeout',
        },
        2,
      ],
      [{ 'error.type': 'tool_error', 'gen_ai.tool.name': 'b' }, 1],
    ]);
    tally.add('a', 'reliability', 'timeout');
    p = await points();
    expect(p[0]!.value).toBe(3);
    await provider.shutdown();
  });

  it('gives deltas to a delta reader, like a synchronous counter would', async () => {
    const { tally, points, provider } = await collect(AggregationTemporality.DELTA);
    tally.add('a', 'governance', 'policy_blocked');
    expect((await points()).map((x) => x.value)).toEqual([1]);
    tally.add('a', 'governance', 'policy_blocked');
    tally.add('a', 'governance', 'policy_blocked');
    expect((await points()).map((x) => x.value)).toEqual([2]);
    await provider.shutdown();
  });

  it('counts attribute sets beyond its limit on one overflow point, losing no failure', async () => {
    const { tally, points, provider } = await collect(AggregationTemporality.CUMULATIVE, 3);
    for (let i = 0; i < 10; i++) tally.add(`tool-${i}`, 'capability', 'invalid_input');
    tally.add('tool-0', 'capability', 'invalid_input');
    const p = await points();
    expect(p).toHaveLength(4);
    expect(p.reduce((n, x) => n + Number(x.value), 0)).toBe(11);
    expect(p.find((x) => x.attributes['otel.metric.overflow'] === true)?.value).toBe(7);
    expect(p.find((x) => x.attributes['gen_ai.tool.name'] === 'tool-0')?.value).toBe(2);
    await provider.shutdown();
  });
});
