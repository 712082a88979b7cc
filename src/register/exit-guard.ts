import { SpanStatusCode, TraceFlags, type Context } from '@opentelemetry/api';
import type { LogRecordExporter, LogRecordProcessor, SdkLogRecord } from '@opentelemetry/sdk-logs';
import type { MetricReader, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import type {
  ReadableSpan,
  Span,
  SpanExporter,
  SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ExitLedger } from './exit-ledger.js';
import {
  ExportChannel,
  type ChannelExporter,
  type ChannelState,
  type ChannelWatcher,
} from './export-channel.js';
import { otlpHttpTarget, postSync, type OtlpHttpTarget, type SyncPost } from './sync-post.js';

/** How long the synchronous send at exit may take, spans and log records together. */
export const SYNC_POST_TIMEOUT_MS = 3_000;

/** Loads a package as `@opentelemetry/sdk-node` resolves it, or as its dependency `via` does. */
export type LineLoader = (name: string, via?: string) => unknown;

/** The two OTLP/HTTP encodings and the one thing each needs at exit. */
type HttpProtocol = 'http/json' | 'http/protobuf';
const CONTENT_TYPE: Record<HttpProtocol, string> = {
  'http/json': 'application/json',
  'http/protobuf': 'application/x-protobuf',
};
const LOG_EXPORTERS: Record<HttpProtocol, string> = {
  'http/json': '@opentelemetry/exporter-logs-otlp-http',
  'http/protobuf': '@opentelemetry/exporter-logs-otlp-proto',
};
const TRACE_EXPORTERS: Record<HttpProtocol, string> = {
  'http/json': '@opentelemetry/exporter-trace-otlp-http',
  'http/protobuf': '@opentelemetry/exporter-trace-otlp-proto',
};
const METRIC_EXPORTERS: Record<HttpProtocol, string> = {
  'http/json': '@opentelemetry/exporter-metrics-otlp-http',
  'http/protobuf': '@opentelemetry/exporter-metrics-otlp-proto',
};
const TRANSFORMER = '@opentelemetry/otlp-transformer';
/** Metric exports that may wait behind the one on the wire (each is a whole collection). */
const METRIC_EXPORTS_QUEUED = 2;

interface Serializer<T> {
  serializeRequest(items: T[]): Uint8Array | undefined;
}
interface Serializers {
  JsonTraceSerializer: Serializer<ReadableSpan>;
  ProtobufTraceSerializer: Serializer<ReadableSpan>;
  JsonLogsSerializer: Serializer<SdkLogRecord>;
  ProtobufLogsSerializer: Serializer<SdkLogRecord>;
}
type BatchOptions = {
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
};
type BatchSpanProcessorClass = new (
  options: BatchOptions & { exporter: SpanExporter },
) => SpanProcessor;
type BatchLogProcessorClass = new (
  options: BatchOptions & { exporter: LogRecordExporter },
) => LogRecordProcessor;
type MetricReaderClass = new (options: {
  exporter: PushMetricExporter;
  exportIntervalMillis: number;
  exportTimeoutMillis: number;
}) => MetricReader;

/** An `OTEL_*` string as the SDK reads it: unset, empty and blank are all absent. */
function envString(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** A number >= 0 from `OTEL_*`, as the SDK reads its batch settings; else the SDK's default. */
function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = envString(env, name);
  const value = raw === undefined ? NaN : Number(raw);
  return value >= 0 ? value : undefined;
}

/** A number > 0 from `OTEL_*`, as NodeSDK reads the metric interval and timeout; else the default. */
function envPositive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = envNumber(env, name);
  return value !== undefined && value > 0 ? value : undefined;
}

/** The batch settings of `prefix` (`OTEL_BSP` or `OTEL_BLRP`), as NodeSDK passes them. */
function batchOptions(env: NodeJS.ProcessEnv, prefix: string): BatchOptions {
  const options: BatchOptions = {};
  const set = (key: keyof BatchOptions, name: string): void => {
    const value = envNumber(env, `${prefix}_${name}`);
    if (value !== undefined) options[key] = value;
  };
  set('maxQueueSize', 'MAX_QUEUE_SIZE');
  set('maxExportBatchSize', 'MAX_EXPORT_BATCH_SIZE');
  set('scheduledDelayMillis', 'SCHEDULE_DELAY');
  set('exportTimeoutMillis', 'EXPORT_TIMEOUT');
  return options;
}

/**
 * The OTLP/HTTP protocol of `signal` when NodeSDK would export it over OTLP/HTTP alone, `none`
 * when it exports nothing, else `undefined`.
 */
function httpProtocol(
  env: NodeJS.ProcessEnv,
  signal: 'TRACES' | 'LOGS' | 'METRICS',
): HttpProtocol | 'none' | undefined {
  const exporters = [
    ...new Set(
      envString(env, `OTEL_${signal}_EXPORTER`)
        ?.split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '' && v !== 'null'),
    ),
  ];
  if (exporters.includes('none')) return 'none';
  if (exporters.length > 1 || (exporters.length === 1 && exporters[0] !== 'otlp')) return undefined;
  const protocol =
    envString(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ??
    envString(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  return protocol === 'http/json' || protocol === 'http/protobuf' ? protocol : undefined;
}

/** Where one signal goes at exit, and how it is encoded. */
interface SyncPath<T> {
  ledger: ExitLedger<T>;
  channel: ExportChannel<T[]>;
  target: OtlpHttpTarget;
  contentType: string;
  serializer: Serializer<T>;
}

/** Exports waiting behind the one on the wire: every batch of a full queue (a flush hands them all). */
function queuedBatches(options: BatchOptions): number {
  const queue = options.maxQueueSize || 2048;
  return Math.ceil(queue / Math.min(options.maxExportBatchSize || 512, queue));
}

/** The ledger following a channel: a batch is out once taken, confirmed once its export ended. */
function watchedBy<T>(ledger: ExitLedger<T>): ChannelWatcher<T[]> {
  return {
    accepted: (items) => ledger.exporting(items),
    settled: (items) => ledger.settled(items),
  };
}

/** The metric points an export carries. */
function metricPoints(metrics: ResourceMetrics): number {
  return metrics.scopeMetrics.reduce(
    (n, scope) => n + scope.metrics.reduce((m, metric) => m + metric.dataPoints.length, 0),
    0,
  );
}

/** Spans still open, so the exit can end them; only sampled ones, as the batch would keep. */
class SpanTracker implements SpanProcessor {
  readonly open = new Set<Span>();
  constructor(
    private readonly ledger: ExitLedger<ReadableSpan>,
    private readonly capacity: number,
  ) {}
  onStart(span: Span, _parent: Context): void {
    if (sampled(span) && this.open.size < this.capacity) this.open.add(span);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span as Span);
    if (sampled(span)) this.ledger.record(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function sampled(span: ReadableSpan): boolean {
  return (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
}

/** Log records as they enter the batch. */
class LogTracker implements LogRecordProcessor {
  constructor(private readonly ledger: ExitLedger<SdkLogRecord>) {}
  onEmit(record: SdkLogRecord): void {
    this.ledger.record(record);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The register entry's telemetry pipeline with what an exit needs: NodeSDK's batch processors
 * as it would build them from `OTEL_*`, with a ledger of what the collector has not confirmed,
 * and `flushSync` to send that from the `exit` event. Only OTLP/HTTP (JSON or protobuf) has
 * such a path; gRPC, console or several exporters keep NodeSDK's own setup and `reasons` says
 * what an exit without the flush loses.
 */
export class ExitGuard {
  /** NodeSDK settings: the span and log processors and the metric reader, or nothing where NodeSDK decides. */
  /** Why a signal has no synchronous path (one phrase each). */
  readonly reasons: string[] = [];
  readonly config: Pick<
    NodeSDKConfiguration,
    'spanProcessors' | 'logRecordProcessors' | 'metricReaders'
  > = {};
  private spans: SyncPath<ReadableSpan> | undefined;
  private logs: SyncPath<SdkLogRecord> | undefined;
  private metrics: ExportChannel<ResourceMetrics> | undefined;
  private metricsUrl: string | undefined;
  private tracker: SpanTracker | undefined;

  constructor(
    load: LineLoader,
    env: NodeJS.ProcessEnv,
    traceExporter: SpanExporter | undefined,
    private readonly post: typeof postSync = postSync,
    notice?: (message: string) => void,
  ) {
    this.setUpSpans(load, env, traceExporter);
    this.setUpLogs(load, env);
    this.setUpMetrics(load, env);
    const unbounded = this.channels().filter((c) => !c.bounded).length;
    if (unbounded > 0)
      notice?.(
        `this OpenTelemetry line's OTLP/HTTP exporters have no transport the entry can bound (${unbounded} of ${this.channels().length}): their retries may hold the process at exit for up to OTEL_EXPORTER_OTLP_TIMEOUT; please report it with the sdk-node version`,
      );
  }

  private setUpSpans(load: LineLoader, env: NodeJS.ProcessEnv, exporter: SpanExporter | undefined) {
    const protocol = httpProtocol(env, 'TRACES');
    if (protocol === 'none') return;
    if (exporter === undefined || protocol === undefined) {
      this.reasons.push('spans go through an exporter other than OTLP/HTTP');
      return;
    }
    try {
      const options = batchOptions(env, 'OTEL_BSP');
      const { BatchSpanProcessor } = load('@opentelemetry/sdk-trace') as {
        BatchSpanProcessor: BatchSpanProcessorClass;
      };
      const { JsonTraceSerializer, ProtobufTraceSerializer } = load(
        TRANSFORMER,
        TRACE_EXPORTERS[protocol],
      ) as Serializers;
      const ledger = new ExitLedger<ReadableSpan>(options.maxQueueSize ?? 2048);
      const channel = new ExportChannel<ReadableSpan[]>(
        exporter,
        (spans) => spans.length,
        queuedBatches(options),
        watchedBy(ledger),
      );
      this.tracker = new SpanTracker(ledger, options.maxQueueSize ?? 2048);
      this.config.spanProcessors = [
        this.tracker,
        new BatchSpanProcessor({
          ...options,
          exporter: channel.exporter as SpanExporter,
        }),
      ];
      this.spans = {
        ledger,
        channel,
        target: otlpHttpTarget(env, 'traces'),
        contentType: CONTENT_TYPE[protocol],
        serializer: protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer,
      };
    } catch {
      this.reasons.push('this sdk-node has no @opentelemetry/sdk-trace to batch spans with');
    }
  }

  private setUpLogs(load: LineLoader, env: NodeJS.ProcessEnv) {
    const protocol = httpProtocol(env, 'LOGS');
    if (protocol === 'none') return;
    if (protocol === undefined) {
      this.reasons.push('log records go through an exporter other than OTLP/HTTP');
      return;
    }
    try {
      const options = batchOptions(env, 'OTEL_BLRP');
      const { BatchLogRecordProcessor } = load('@opentelemetry/sdk-logs') as {
        BatchLogRecordProcessor: BatchLogProcessorClass;
      };
      const { OTLPLogExporter } = load(LOG_EXPORTERS[protocol]) as {
        OTLPLogExporter: new () => LogRecordExporter;
      };
      const { JsonLogsSerializer, ProtobufLogsSerializer } = load(
        TRANSFORMER,
        LOG_EXPORTERS[protocol],
      ) as Serializers;
      const ledger = new ExitLedger<SdkLogRecord>(options.maxQueueSize ?? 2048);
      const channel = new ExportChannel<SdkLogRecord[]>(
        new OTLPLogExporter(),
        (records) => records.length,
        queuedBatches(options),
        watchedBy(ledger),
      );
      this.config.logRecordProcessors = [
        new LogTracker(ledger),
        new BatchLogRecordProcessor({
          ...options,
          exporter: channel.exporter as LogRecordExporter,
        }),
      ];
      this.logs = {
        ledger,
        channel,
        target: otlpHttpTarget(env, 'logs'),
        contentType: CONTENT_TYPE[protocol],
        serializer: protocol === 'http/json' ? JsonLogsSerializer : ProtobufLogsSerializer,
      };
    } catch {
      this.reasons.push('this sdk-node has no @opentelemetry/sdk-logs to batch log records with');
    }
  }

  /**
   * The periodic OTLP/HTTP metric reader NodeSDK would build from `OTEL_METRIC_EXPORT_*` (the
   * timeout clamped to the interval, as NodeSDK does), its exporter behind a channel. Metrics
   * have no synchronous path at exit: what an exit without the flush loses is since the last export.
   */
  private setUpMetrics(load: LineLoader, env: NodeJS.ProcessEnv) {
    const protocol = httpProtocol(env, 'METRICS');
    if (protocol === 'none' || protocol === undefined) return;
    try {
      const { PeriodicExportingMetricReader } = load('@opentelemetry/sdk-metrics') as {
        PeriodicExportingMetricReader: MetricReaderClass;
      };
      const { OTLPMetricExporter } = load(METRIC_EXPORTERS[protocol]) as {
        OTLPMetricExporter: new () => PushMetricExporter;
      };
      const interval = envPositive(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000;
      const timeout = Math.min(envPositive(env, 'OTEL_METRIC_EXPORT_TIMEOUT') ?? 30_000, interval);
      const channel = new ExportChannel<ResourceMetrics>(
        new OTLPMetricExporter() as ChannelExporter<ResourceMetrics>,
        metricPoints,
        METRIC_EXPORTS_QUEUED,
      );
      this.config.metricReaders = [
        new PeriodicExportingMetricReader({
          exporter: channel.exporter as PushMetricExporter,
          exportIntervalMillis: interval,
          exportTimeoutMillis: timeout,
        }),
      ];
      this.metrics = channel;
      this.metricsUrl = otlpHttpTarget(env, 'metrics').url;
    } catch {
      // this line's sdk-node builds its metric reader itself: it still exports, unbounded
    }
  }

  /** From now on each export gets one attempt: no retry, no wait (the process is ending). */
  stopping(): void {
    for (const channel of this.channels()) channel.stop();
  }

  private channels(): ChannelState[] {
    return [this.spans?.channel, this.logs?.channel, this.metrics].filter(
      (c): c is NonNullable<typeof c> => c !== undefined,
    );
  }

  /**
   * The one line that says what the collector never confirmed and why, or `undefined` when all
   * of it was delivered. `abandoned`: the flush ran out of time, and what is still waiting or
   * unanswered is counted too. `unsent`: what the synchronous send at exit did not get through.
   */
  report(
    abandoned?: number,
    unsent: ReadonlyArray<{ what: string; count: number; why: string }> = [],
  ): string | undefined {
    const counts = new Map<string, number>();
    const why = new Set<string>();
    const add = (what: string, n: number, reason: string | undefined, url?: string): void => {
      if (n <= 0) return;
      counts.set(what, (counts.get(what) ?? 0) + n);
      if (reason !== undefined) why.add(url === undefined ? reason : `${url} ${reason}`);
    };
    const signals: Array<[string, ChannelState | undefined, string | undefined]> = [
      ['spans', this.spans?.channel, this.spans?.target.url],
      ['log records', this.logs?.channel, this.logs?.target.url],
      ['metric points', this.metrics, this.metricsUrl],
    ];
    for (const [what, channel, url] of signals) {
      if (channel === undefined) continue;
      if (abandoned !== undefined && channel.pending > 0) {
        const silent = channel.unanswered || channel.reason === undefined;
        add(
          what,
          channel.lost + channel.pending,
          silent ? `did not answer within ${abandoned} ms` : channel.reason,
          url,
        );
      } else add(what, channel.lost, channel.reason, url);
    }
    for (const u of unsent) add(u.what, u.count, u.why);
    if (counts.size === 0) return undefined;
    const list = [...counts].map(([what, n]) => `${n} ${what}`).join(', ');
    const reasons = why.size === 0 ? '' : ` (${[...why].join('; ')})`;
    return abandoned !== undefined
      ? `telemetry flush stopped after ${abandoned} ms; the process ends without ${list}${reasons}`
      : `telemetry dropped, never confirmed by the collector: ${list}${reasons}`;
  }

  /**
   * Ends the spans still open (as errors: the process exited before they ended) and sends every
   * span and log record the collector has not confirmed, in one synchronous step (a child process
   * making one POST per signal) of at most {@link SYNC_POST_TIMEOUT_MS}. Returns one line per signal that did not get through,
   * and one for a signal without such a path: the caller says them.
   */
  flushSync(): string[] {
    for (const span of this.tracker?.open ?? []) {
      if (!span.isRecording()) continue;
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: 'the process exited before the span ended',
      });
      span.end();
    }
    const batches: Array<{ what: string; count: number; post: SyncPost }> = [];
    const unsent: Array<{ what: string; count: number; why: string }> = [];
    const add = <T>(path: SyncPath<T> | undefined, what: string): void => {
      if (path === undefined) return;
      const items = path.ledger.take(path.channel.handedOver());
      if (items.length === 0) return;
      // Nothing listens there: a second try at exit would only cost the wait for the child.
      if (path.channel.refused) {
        unsent.push({
          what,
          count: items.length,
          why: `${path.target.url} refused the connection`,
        });
        return;
      }
      const body = path.serializer.serializeRequest(items);
      if (body !== undefined)
        batches.push({
          what,
          count: items.length,
          post: { target: path.target, contentType: path.contentType, body },
        });
    };
    add(this.spans, 'spans');
    add(this.logs, 'log records');
    if (batches.length > 0) {
      const results = this.post(
        batches.map((b) => b.post),
        SYNC_POST_TIMEOUT_MS,
      );
      batches.forEach((batch, i) => {
        const result = results[i] ?? 'unreachable';
        if (result !== 'sent')
          unsent.push({
            what: batch.what,
            count: batch.count,
            why: `${batch.post.target.url} ${result} at exit`,
          });
      });
    }
    const problems: string[] = [];
    const line = this.report(undefined, unsent);
    if (line !== undefined) problems.push(line);
    for (const reason of this.reasons)
      problems.push(
        `telemetry still batched at exit is lost: ${reason} (see "Stopping without losing telemetry" in docs/operations.md)`,
      );
    return problems;
  }
}
