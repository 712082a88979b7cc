export { parseOtlpJson, spansFromTracesData, OtlpParseError } from './otlp.js';
export type { AttributeValue, LookupEvent, LookupSpan, LookupSpanKind } from './otlp.js';
export { buildFailureChain, failureFields, isTraceId, traceIdsForCorrelationId } from './chain.js';
export type { ChainNode, ChainRole, FailureChain, SpanFailureFields } from './chain.js';
export { formatFailureChain, formatDuration } from './format.js';
export { jaegerTraceUrl, jaegerTagSearchUrl, traceIdsFromTagSearch } from './jaeger.js';
