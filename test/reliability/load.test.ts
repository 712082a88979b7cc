import { context, metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpInstrumentation } from '../../src/index.js';
import {
  TOOL_FAILURE_META_KEY as KEY,
  toolFailure,
  type ToolFailure,
} from '../../packages/tool-failure/src/index.js';
import { InMemoryTransport, McpServer } from '../helpers/mcp-v1.js';
import { throughProxy } from '../../packages/proxy/test/harness.js';

/**
 * 1,000 concurrent `tools/call` through the relaying proxy, everything in this process and
 * instrumented: agent Client → createToolFailureProxy (Server + upstream Client) → McpServer.
 * Spans go through a BatchSpanProcessor with the settings below (stated in docs/reliability.md).
 */
const CALLS = 1_000;
const BSP = { maxQueueSize: 8_192, maxExportBatchSize: 512, scheduledDelayMillis: 200 };

const exporter = new InMemorySpanExporter();
const processor = new BatchSpanProcessor(exporter, BSP);
const tracerProvider = new BasicTracerProvider({ spanProcessors: [processor] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });
const instrumentation = new McpInstrumentation();

type Point = { attributes: Record<string, unknown>; value: number };

async function points(name: string): Promise<Point[]> {
  metricExporter.reset();
  await reader.forceFlush();
  const batches = metricExporter.getMetrics();
  const out: Point[] = [];
  for (const scope of batches[batches.length - 1]?.scopeMetrics ?? [])
    for (const m of scope.metrics)
      if (m.descriptor.name === name)
        for (const p of m.dataPoints)
          out.push({ attributes: p.attributes, value: Number(p.value) });
  return out;
}

/** Sum of a counter by `class/code`. */
function byClassCode(ps: Point[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of ps) {
    const key = `${String(p.attributes['mcp.tool.failure.class'])}/${String(p.attributes['mcp.tool.failure.code'])}`;
    out[key] = (out[key] ?? 0) + p.value;
  }
  return out;
}

/** What the upstream does with call `i`: every 3rd governance, every 5th (else) throws. */
function kindOf(i: number): 'governance' | 'thrown' | 'success' {
  if (i % 3 === 0) return 'governance';
  if (i % 5 === 0) return 'thrown';
  return 'success';
}

const expected = { governance: 0, thrown: 0, success: 0 };
for (let i = 0; i < CALLS; i++) expected[kindOf(i)] += 1;

describe('load: 1,000 concurrent tool calls through the proxy, BatchSpanProcessor', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
    instrumentation.setMeterProvider(meterProvider);
    instrumentation._patchLoaded({ v1Protocol, v1Mcp });
  });
  afterAll(async () => {
    instrumentation.disable();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });

  it('every call settles with its own outcome; each failure is counted once per side; every span is exported', async () => {
    const upstreams: McpServer[] = [];
    const p = await throughProxy({
      timeoutMs: 300_000,
      upstream: async () => {
        const [proxySide, upstreamSide] = InMemoryTransport.createLinkedPair();
        const server = new McpServer({ name: 'load-upstream', version: '1' });
        server.tool('work', { i: z.number() }, async ({ i }) => {
          const kind = kindOf(i);
          if (kind === 'governance')
            return toolFailure({
              class: 'governance',
              code: 'permission_denied',
              message: `call ${i} needs approval`,
            });
          if (kind === 'thrown') throw new Error(`call ${i} failed`);
          return { content: [{ type: 'text', text: `ok ${i}` }] };
        });
        upstreams.push(server);
        await server.connect(upstreamSide);
        return proxySide;
      },
    });
    try {
      await p.client.listTools();
      exporter.reset();
      await processor.forceFlush();
      exporter.reset();
      const baseline = {
        client: byClassCode(await points('mcp.client.tool.failures')),
        server: byClassCode(await points('mcp.server.tool.failures')),
      };
      expect(baseline).toEqual({ client: {}, server: {} });

      const results = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          p.client.callTool({ name: 'work', arguments: { i } }, undefined, { timeout: 300_000 }),
        ),
      );

      // Every call got its own answer back, unchanged by the relay.
      const seen = { governance: 0, thrown: 0, success: 0 };
      results.forEach((r, i) => {
        const kind = kindOf(i);
        seen[kind] += 1;
        const failure = r._meta?.[KEY] as ToolFailure | undefined;
        if (kind === 'success') {
          expect(r.isError).toBeUndefined();
          expect(r.content).toEqual([{ type: 'text', text: `ok ${i}` }]);
        } else if (kind === 'governance') {
          expect(r.isError).toBe(true);
          expect(failure).toMatchObject({ class: 'governance', code: 'permission_denied' });
        } else {
          expect(r.isError).toBe(true);
          expect(failure).toMatchObject({ class: 'reliability' });
          expect(JSON.stringify(r.content)).toContain(`call ${i} failed`);
        }
      });
      expect(seen).toEqual(expected);
      // The load is a mix: every kind of outcome is among the 1,000 calls.
      for (const kind of ['governance', 'thrown', 'success'] as const)
        expect(expected[kind], kind).toBeGreaterThan(0);

      await processor.forceFlush();
      const spans: ReadableSpan[] = exporter.getFinishedSpans();
      const calls = spans.filter((s) => s.name === 'tools/call work');
      const byId = new Map(calls.map((s) => [s.spanContext().spanId, s]));
      const parentOf = (s: ReadableSpan): ReadableSpan | undefined =>
        s.parentSpanContext === undefined ? undefined : byId.get(s.parentSpanContext.spanId);
      // Roles by place in the trace: agent CLIENT (root) → proxy SERVER → proxy CLIENT → upstream SERVER.
      const agent = calls.filter((s) => s.kind === SpanKind.CLIENT && parentOf(s) === undefined);
      const proxyServer = calls.filter(
        (s) =>
          s.kind === SpanKind.SERVER &&
          parentOf(s)?.kind === SpanKind.CLIENT &&
          agent.includes(parentOf(s)!),
      );
      const proxyServerSet = new Set(proxyServer);
      const proxyClient = calls.filter(
        (s) => s.kind === SpanKind.CLIENT && proxyServerSet.has(parentOf(s)!),
      );
      const proxyClientSet = new Set(proxyClient);
      const upstreamServer = calls.filter(
        (s) => s.kind === SpanKind.SERVER && proxyClientSet.has(parentOf(s)!),
      );
      expect({
        all: calls.length,
        agent: agent.length,
        proxyServer: proxyServer.length,
        proxyClient: proxyClient.length,
        upstreamServer: upstreamServer.length,
      }).toEqual({
        all: 4 * CALLS,
        agent: CALLS,
        proxyServer: CALLS,
        proxyClient: CALLS,
        upstreamServer: CALLS,
      });
      // Every trace holds exactly one span of each role.
      expect(new Set(agent.map((s) => s.spanContext().traceId)).size).toBe(CALLS);

      // Who made each failure object: the upstream (its handler or its instrumentation);
      // the proxy's server span only says it relayed one.
      const sources = (list: ReadableSpan[]): Record<string, number> => {
        const out: Record<string, number> = {};
        for (const s of list) {
          const k = String(s.attributes['mcp.tool.failure.source'] ?? 'none');
          out[k] = (out[k] ?? 0) + 1;
        }
        return out;
      };
      const failed = expected.governance + expected.thrown;
      expect(sources(upstreamServer)).toEqual({
        server: expected.governance,
        instrumentation: expected.thrown,
        none: expected.success,
      });
      expect(sources(proxyServer)).toEqual({ upstream: failed, none: expected.success });

      // Counters: one MeterProvider (one service) here holds both sides of the proxy, so each
      // failure appears twice on each counter: once for the upstream server and once for the
      // proxy's server side (mcp.server.tool.failures), once for the agent and once for the
      // proxy's upstream client (mcp.client.tool.failures). Deployed, the proxy is its own
      // service: every failure is counted once under each service that saw it.
      const perSide = {
        'governance/permission_denied': expected.governance,
        'reliability/internal_error': expected.thrown,
      };
      const twice = Object.fromEntries(Object.entries(perSide).map(([k, v]) => [k, 2 * v]));
      expect(byClassCode(await points('mcp.server.tool.failures'))).toEqual(twice);
      expect(byClassCode(await points('mcp.client.tool.failures'))).toEqual(twice);
      // And the spans that count them agree, role by role.
      for (const role of [agent, proxyServer, proxyClient, upstreamServer])
        expect(role.filter((s) => s.attributes['error.type'] === 'tool_error')).toHaveLength(
          failed,
        );
    } finally {
      await p.close();
      await Promise.all(upstreams.map((s) => s.close()));
    }
  }, 300_000);
});
