import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  W3CTraceContextPropagator,
  W3CBaggagePropagator,
  CompositePropagator,
} from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpInstrumentation } from '../../src/instrumentation.js';
import type { McpInstrumentationConfig } from '../../src/types.js';

/** Real OpenTelemetry SDK pieces with in-memory exporters, registered globally. */
export interface TestTelemetry {
  spans: InMemorySpanExporter;
  logs: InMemoryLogRecordExporter;
  metricExporter: InMemoryMetricExporter;
  reader: PeriodicExportingMetricReader;
  meterProvider: MeterProvider;
  instrumentation: McpInstrumentation;
  finished(): ReadableSpan[];
  /** Log records emitted so far (after flushing). */
  logRecords(): Promise<ReturnType<InMemoryLogRecordExporter['getFinishedLogRecords']>>;
  /** Collects metrics now and returns the data points of one metric. */
  metric(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>>;
  reset(): void;
}

let current: TestTelemetry | undefined;

/**
 * Sets up tracing, metrics and logs once per test file and patches the SDK 1.x modules loaded
 * here (`patch: false` leaves them alone, for tests of manual mode).
 */
export function setupTelemetry(
  config: McpInstrumentationConfig = {},
  { patch = true }: { patch?: boolean } = {},
): TestTelemetry {
  if (current !== undefined) {
    current.instrumentation.setConfig(config);
    return current;
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  const spans = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const logExporter = new InMemoryLogRecordExporter();
  const loggerProvider = new LoggerProvider({
    processors: [new SimpleLogRecordProcessor({ exporter: logExporter })],
  });
  logs.setGlobalLoggerProvider(loggerProvider);

  const instrumentation = new McpInstrumentation(config);
  instrumentation.setMeterProvider(meterProvider);
  instrumentation.setLoggerProvider(loggerProvider);
  if (patch) instrumentation._patchLoaded({ v1Protocol, v1Mcp });

  current = {
    spans,
    logs: logExporter,
    metricExporter,
    reader,
    meterProvider,
    instrumentation,
    finished: () => spans.getFinishedSpans(),
    async logRecords() {
      await loggerProvider.forceFlush();
      return logExporter.getFinishedLogRecords();
    },
    async metric(name) {
      metricExporter.reset();
      await reader.forceFlush();
      const batches: ResourceMetrics[] = metricExporter.getMetrics();
      const last = batches[batches.length - 1];
      const points: Array<{ attributes: Record<string, unknown>; value: unknown }> = [];
      for (const scope of last?.scopeMetrics ?? []) {
        for (const m of scope.metrics) {
          if (m.descriptor.name !== name) continue;
          for (const p of m.dataPoints) points.push({ attributes: p.attributes, value: p.value });
        }
      }
      return points;
    },
    reset() {
      spans.reset();
      logExporter.reset();
    },
  };
  return current;
}
