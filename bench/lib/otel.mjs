// The OpenTelemetry SDK every variant shares: the same providers, processors and exporters,
// so the only difference between variants is the MCP instrumentation.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Batch settings of the benchmark pipeline (documented in docs/performance.md). */
export const BATCH = {
  maxQueueSize: 8192,
  maxExportBatchSize: 512,
  scheduledDelayMillis: 200,
  exportTimeoutMillis: 5000,
};

/**
 * An exporter that drops spans after counting them and keeping the last few in a ring, so
 * export costs the same for every variant and the spans can still be checked.
 */
export class CountingExporter {
  constructor(ring = 16) {
    this.count = 0;
    this.ring = [];
    this.ringSize = ring;
  }
  export(items, done) {
    for (const s of items) {
      this.count++;
      if (this.ring.length >= this.ringSize) this.ring.shift();
      this.ring.push(s);
    }
    done({ code: 0 });
  }
  shutdown() {
    return Promise.resolve();
  }
  forceFlush() {
    return Promise.resolve();
  }
  reset() {
    this.ring = [];
  }
}

/** A span as the checks need it. */
export function slim(s) {
  const sc = s.spanContext();
  return {
    name: s.name,
    kind: s.kind,
    traceId: sc.traceId,
    spanId: sc.spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    status: s.status.code,
    attributes: Object.keys(s.attributes).sort(),
  };
}

/**
 * Registers tracing (BatchSpanProcessor), metrics and logs globally, like an application
 * with an OpenTelemetry SDK would. `spanExporter` replaces the counting exporter.
 */
export function setupOtel({ spanExporter, batch = BATCH } = {}) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  const spans = spanExporter ?? new CountingExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(spans, batch)],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const logExporter = new CountingExporter(0);
  const loggerProvider = new LoggerProvider({
    processors: [new BatchLogRecordProcessor({ exporter: logExporter })],
  });
  logs.setGlobalLoggerProvider(loggerProvider);
  return { spans, tracerProvider, meterProvider, loggerProvider, reader };
}
