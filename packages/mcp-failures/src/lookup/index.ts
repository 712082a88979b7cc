export {
  parseOtlpJson,
  parseOtlpJsonSignals,
  spansFromTracesData,
  logRecordsFromLogsData,
  OtlpParseError,
} from './otlp.js';
export type {
  AttributeValue,
  LookupEvent,
  LookupLogRecord,
  LookupSpan,
  LookupSpanKind,
} from './otlp.js';
export {
  buildFailureChain,
  failureFields,
  isTraceId,
  logRecordsForCorrelationId,
  traceIdsForCorrelationId,
} from './chain.js';
export type { ChainNode, ChainRole, FailureChain, SpanFailureFields } from './chain.js';
export {
  formatFailureChain,
  formatDuration,
  formatTraceLogs,
  formatUnsampledFailure,
} from './format.js';
export {
  jaegerTraceUrl,
  jaegerTagSearchUrl,
  jaegerSearchUrl,
  traceIdsFromTagSearch,
} from './jaeger.js';
export {
  ALERT_LABELS,
  ALERT_LOOKBACK_MS,
  formatFailureList,
  jaegerTagsOf,
  parseTimeOrDuration,
  queriesFromAlertNotification,
  searchFailures,
} from './search.js';
export type { FailureHit, FailureQuery } from './search.js';
