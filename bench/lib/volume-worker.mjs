// One process of the volume section (bench/lib/volume-run.mjs): one variant (BENCH_VARIANT),
// one encoding (BENCH_VOLUME_ENCODING: protobuf or json), one scenario (BENCH_VOLUME_SCENARIO:
// ok or fail). The real OTLP/HTTP exporters of each signal send to a byte-counting receiver in
// this process; BENCH_VOLUME_CALLS sequential calls of the scenario's tool over an in-memory
// pair, then every signal is flushed once. Prints one JSON line: bytes and requests per
// signal, and (JSON only) what the bodies carried.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPLogExporter as JsonLogs } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogs } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as JsonMetrics } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetrics } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraces } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraces } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BATCH } from './otel.mjs';
import { startOtlpCounter } from './otlp-counter.mjs';
import { connectInMemory } from './server.mjs';
import { installVariant } from './variants.mjs';
import { digestOf } from './volume-digest.mjs';
import { sampleTraces } from './volume-sampling.mjs';

const name = process.env.BENCH_VARIANT ?? 'omcp';
const encoding = process.env.BENCH_VOLUME_ENCODING ?? 'protobuf';
const scenario = process.env.BENCH_VOLUME_SCENARIO ?? 'ok';
const calls = Number(process.env.BENCH_VOLUME_CALLS ?? '200');

const counter = await startOtlpCounter();
const json = encoding === 'json';
const url = (path) => `${counter.url}/v1/${path}`;
// One resource for every variant, so its bytes (once per request) are the same for all.
const resource = resourceFromAttributes({ 'service.name': 'volume-bench' });

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  }),
);
const traceExporter = new (json ? JsonTraces : ProtoTraces)({ url: url('traces') });
const tracerProvider = new BasicTracerProvider({
  resource,
  spanProcessors: [new BatchSpanProcessor(traceExporter, BATCH)],
});
trace.setGlobalTracerProvider(tracerProvider);
const reader = new PeriodicExportingMetricReader({
  exporter: new (json ? JsonMetrics : ProtoMetrics)({ url: url('metrics') }),
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ resource, readers: [reader] });
metrics.setGlobalMeterProvider(meterProvider);
const loggerProvider = new LoggerProvider({
  resource,
  processors: [
    new BatchLogRecordProcessor({
      exporter: new (json ? JsonLogs : ProtoLogs)({ url: url('logs') }),
      ...BATCH,
    }),
  ],
});
logs.setGlobalLoggerProvider(loggerProvider);

const variant = await installVariant(name);
const client = await connectInMemory(variant, 'volume-client');
// Flushed before the measured calls: what setting up the session exported is not theirs.
await tracerProvider.forceFlush();
await loggerProvider.forceFlush();
counter.reset();
for (let i = 0; i < calls; i++) {
  const r = await client.callTool({ name: scenario, arguments: {} });
  if ((r.isError === true) !== (scenario === 'fail'))
    throw new Error(`unexpected result of ${scenario}: ${JSON.stringify(r).slice(0, 200)}`);
}
await tracerProvider.forceFlush();
await loggerProvider.forceFlush();
await reader.forceFlush();
const out = { variant: name, encoding, scenario, calls, counts: counter.counts };
if (json) {
  const { spans, ...digest } = digestOf(counter.bodies);
  out.digest = digest;
  out.sampling = sampleTraces(spans);
}
await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown(), loggerProvider.shutdown()]);
await counter.close();
// Exit once the line is out: a pipe takes a large write in several turns.
process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
