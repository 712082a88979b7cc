import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { LoggerProvider } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ExitGuard, SYNC_POST_TIMEOUT_MS, type LineLoader } from '../../src/register/exit-guard.js';
import type { postSync, SyncPost } from '../../src/register/sync-post.js';

const require = createRequire(import.meta.url);
/** This repository's OpenTelemetry line, loaded the way the register entry loads sdk-node's. */
const load: LineLoader = (name, via) =>
  via === undefined ? require(name) : createRequire(require.resolve(via))(name);

/** A guard, a tracer and a logger wired to it, with nothing sent on a schedule. */
function pipeline(env: Record<string, string>, post?: typeof postSync) {
  const all = { OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_BLRP_SCHEDULE_DELAY: '60000', ...env };
  const exporter = new OTLPTraceExporter({ url: 'http://127.0.0.1:9' });
  const guard = new ExitGuard(load, all, exporter, post);
  const tracer = new BasicTracerProvider({
    spanProcessors: guard.config.spanProcessors ?? [],
  }).getTracer('exit-guard-test');
  const logger = new LoggerProvider({
    processors: guard.config.logRecordProcessors ?? [],
  }).getLogger('exit-guard-test');
  return { guard, tracer, logger };
}

describe('ExitGuard', () => {
  it('hands the batched spans and log records to one synchronous send, and ends the open spans as errors', () => {
    const posts: SyncPost[] = [];
    // The send itself is a child process (exit-without-loss.test.ts covers it): a receiver in
    // this process could not answer while the send blocks it, as the `exit` event does.
    const { guard, tracer, logger } = pipeline(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
      (batch, timeoutMs) => {
        expect(timeoutMs).toBe(SYNC_POST_TIMEOUT_MS);
        posts.push(...batch);
        return batch.map(() => 'sent');
      },
    );
    tracer.startSpan('finished-before-exit').end();
    tracer.startSpan('open-at-exit');
    logger.emit({ body: 'a failure record' });
    expect(guard.flushSync()).toEqual([]);
    expect(posts.map((p) => [p.target.url, p.contentType])).toEqual([
      ['http://collector:4318/v1/traces', 'application/json'],
      ['http://collector:4318/v1/logs', 'application/json'],
    ]);
    const [traces, logs] = posts.map((p) => Buffer.from(p.body).toString('utf8'));
    const spans = (
      JSON.parse(traces ?? '') as {
        resourceSpans: Array<{
          scopeSpans: Array<{ spans: Array<{ name: string; status?: { code?: number } }> }>;
        }>;
      }
    ).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    expect(spans.map((s) => [s.name, s.status?.code ?? 0])).toEqual([
      ['finished-before-exit', 0],
      ['open-at-exit', 2],
    ]);
    expect(logs).toContain('a failure record');
    // Sent once: a second exit hook has nothing left to send.
    expect(guard.flushSync()).toEqual([]);
    expect(posts).toHaveLength(2);
  });

  it('an unreachable collector: one line with what was not sent and why, and no throw', () => {
    const { guard, tracer, logger } = pipeline({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    tracer.startSpan('lost').end();
    logger.emit({ body: 'lost too' });
    expect(guard.flushSync()).toEqual([
      'telemetry dropped, never confirmed by the collector: 1 spans, 1 log records (http://127.0.0.1:9/v1/traces unreachable at exit; http://127.0.0.1:9/v1/logs unreachable at exit)',
    ]);
  });

  it('gRPC has no synchronous path: NodeSDK keeps its own pipeline and the exit says what is lost', () => {
    const { guard } = pipeline({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(guard.config).toEqual({});
    expect(guard.flushSync()).toEqual([
      'telemetry still batched at exit is lost: spans go through an exporter other than OTLP/HTTP (see "Stopping without losing telemetry" in docs/operations.md)',
      'telemetry still batched at exit is lost: log records go through an exporter other than OTLP/HTTP (see "Stopping without losing telemetry" in docs/operations.md)',
    ]);
  });

  it('an exporter set to none has nothing to lose and says nothing', () => {
    const { guard } = pipeline({
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
    });
    expect(guard.config).toEqual({});
    expect(guard.flushSync()).toEqual([]);
  });
});
