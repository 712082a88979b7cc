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
export { formatFailureChain, formatDuration, formatUnsampledFailure } from './format.js';
export { jaegerTraceUrl, jaegerTagSearchUrl, traceIdsFromTagSearch } from './jaeger.js';
