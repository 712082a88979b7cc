// Settings of the collector runs (documented in docs/performance.md).

/** BatchSpanProcessor: the SDK's default queue and batch, a shorter schedule, the SDK's export timeout. */
export const COLLECTOR_BATCH = {
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  scheduledDelayMillis: 500,
  // Must not be shorter than the exporter's timeoutMillis: a processor that gives up on an export
  // first starts the next batch while the exporter is still retrying the last one.
  exportTimeoutMillis: 30_000,
};

/**
 * OTLP exporter: the default timeout and retries (10 s: up to five attempts, 1 s → 5 s apart, so
 * a batch is delivered if the collector is back within about 8 s), and concurrency limited to
 * what a forceFlush of a full queue needs (every queued batch plus the one in flight) instead of
 * the default 30, as the zero-code entry does (src/register/start.ts).
 */
export const COLLECTOR_EXPORTER = {
  timeoutMillis: 10_000,
  concurrencyLimit:
    Math.ceil(COLLECTOR_BATCH.maxQueueSize / COLLECTOR_BATCH.maxExportBatchSize) + 1,
};

/** Idle time after each round's calls, inside its CPU window: the last partial batch is exported. */
export const SETTLE_MS = COLLECTOR_BATCH.scheduledDelayMillis + 500;
