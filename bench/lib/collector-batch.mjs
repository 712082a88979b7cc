/** BatchSpanProcessor settings for the collector runs (documented in docs/performance.md). */
export const COLLECTOR_BATCH = {
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  scheduledDelayMillis: 500,
  exportTimeoutMillis: 2000,
};
