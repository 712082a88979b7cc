import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { traceExportConcurrency, traceExporterFromEnv } from '../../src/register/start.js';

function someSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  provider.getTracer('t').startSpan('s').end();
  return memory.getFinishedSpans();
}

describe('zero-code entry: the OTLP trace exporter', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('limits concurrent exports to the batches of a full queue plus the one in flight', () => {
    expect(traceExportConcurrency({})).toBe(2048 / 512 + 1);
    expect(traceExportConcurrency({ OTEL_BSP_MAX_QUEUE_SIZE: '8192' })).toBe(17);
    expect(
      traceExportConcurrency({
        OTEL_BSP_MAX_QUEUE_SIZE: '1000',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '300',
      }),
    ).toBe(5);
    // A batch larger than the queue is cut to the queue by the processor.
    expect(
      traceExportConcurrency({
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512',
      }),
    ).toBe(2);
    // What the SDK ignores (not a number, not positive, blank) is ignored here too.
    expect(
      traceExportConcurrency({
        OTEL_BSP_MAX_QUEUE_SIZE: 'lots',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '0',
      }),
    ).toBe(5);
    expect(traceExportConcurrency({ OTEL_BSP_MAX_QUEUE_SIZE: ' ' })).toBe(5);
  });

  it('is built for the protocol NodeSDK would use, and left to NodeSDK for any other choice', () => {
    expect(traceExporterFromEnv({})).toBeInstanceOf(ProtobufTraceExporter);
    expect(traceExporterFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' })).toBeInstanceOf(
      ProtobufTraceExporter,
    );
    expect(traceExporterFromEnv({ OTEL_TRACES_EXPORTER: ' otlp, otlp ' })).toBeInstanceOf(
      ProtobufTraceExporter,
    );
    expect(traceExporterFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeInstanceOf(
      JsonTraceExporter,
    );
    expect(
      traceExporterFromEnv({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
      }),
    ).toBeInstanceOf(GrpcTraceExporter);
    expect(traceExporterFromEnv({ OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(traceExporterFromEnv({ OTEL_TRACES_EXPORTER: 'console' })).toBeUndefined();
    expect(traceExporterFromEnv({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toBeUndefined();
    expect(traceExporterFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' })).toBeUndefined();
  });

  it('refuses an export beyond the limit at once, and keeps reading OTEL_EXPORTER_OTLP_*', async () => {
    // A collector that takes requests and never answers: where they arrive shows the endpoint
    // was read, and how they end shows the timeout was.
    const paths: string[] = [];
    const collector = createHttpServer((req) => {
      paths.push(req.url ?? '');
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `http://127.0.0.1:${port}/custom/v1/traces`);
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', '300');
    const env = { OTEL_BSP_MAX_QUEUE_SIZE: '1024', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    const limit = traceExportConcurrency(env);
    expect(limit).toBe(3);
    const exporter = traceExporterFromEnv(env)!;
    const spans = someSpans();
    const results: { code: number; error?: Error }[] = [];
    const done = Promise.all(
      Array.from(
        { length: limit + 1 },
        () =>
          new Promise<void>((resolve) =>
            exporter.export(spans, (r) => {
              results.push(r);
              resolve();
            }),
          ),
      ),
    );
    try {
      // The one over the limit is answered before any connection is tried.
      expect(results.map((r) => r.error?.message)).toEqual(['Concurrent export limit reached']);
      await done;
      expect(paths.length).toBeGreaterThanOrEqual(limit);
      expect(new Set(paths)).toEqual(new Set(['/custom/v1/traces']));
      // The others ended by the 300 ms timeout from the environment (the default is 10 s, beyond
      // this test's own timeout), not by an answer.
      for (const r of results.slice(1)) {
        expect(r.code).toBe(1);
        expect(r.error?.message, String(r.error)).toMatch(/timeout|timed out/i);
      }
    } finally {
      await exporter.shutdown();
      collector.closeAllConnections();
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});
