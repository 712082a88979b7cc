// "At equal information": what each span attribute of a variant tells a reader, as a fact, so a
// variant's bytes can be compared with a peer's on the facts both carry. A span's bytes at equal
// information are its bytes on the wire minus the attributes whose fact the other side does not
// carry (span names, ids, times and status stay: both sides have them). Redundancy inside one
// side stays counted: `mcp.method.name` and `gen_ai.operation.name` both say "a tool call", and
// both are paid for, as the semantic conventions ask.
import { eventSize, jsonElementSize, keyValueSize } from './volume-bytes.mjs';

/** Attribute key (or key prefix ending in `.`) → the fact it carries. */
export const FACTS = {
  // This package (semantic conventions, docs/semantic-conventions.md).
  'mcp.method.name': 'operation',
  'gen_ai.operation.name': 'operation',
  'gen_ai.tool.name': 'tool name',
  'network.transport': 'transport',
  'mcp.protocol.version': 'protocol version',
  'jsonrpc.request.id': 'request id',
  'mcp.tool.call.server.': 'server identity',
  'mcp.tool.failure.peer_declared': 'extension declared',
  'error.type': 'error type',
  'mcp.tool.failure.class': 'failure class',
  'mcp.tool.failure.code': 'failure code',
  'mcp.tool.failure.correlation_id': 'correlation id',
  'mcp.tool.failure.retryable': 'retryable',
  'mcp.tool.failure.source': 'failure source',
  // @traceloop/instrumentation-mcp.
  'traceloop.span.kind': 'operation',
  'traceloop.entity.name': 'tool name',
  'traceloop.entity.input': 'arguments',
  'traceloop.entity.output': 'result',
  // autotel-mcp-instrumentation.
  'operation.name': 'operation',
  'code.function': 'operation',
  'mcp.security.manifest.digest': 'tool manifest digest',
  'mcp.tool.arguments.size': 'arguments size',
  'mcp.tool.result.size': 'result size',
  'operation.duration': 'duration',
  'operation.success': 'error type',
  error: 'error type',
  'mcp.failure.category': 'failure class',
  'mcp.failure.fingerprint': 'failure fingerprint',
  'error.message': 'error message',
  'exception.type': 'error type',
  'exception.message': 'error message',
  'error.stack': 'stack',
  'exception.stack': 'stack',
};

/** The fact an attribute key carries (its own key when it is not in FACTS). */
export function factOf(key) {
  if (key in FACTS) return FACTS[key];
  const prefix = Object.keys(FACTS).find((k) => k.endsWith('.') && key.startsWith(k));
  return prefix === undefined ? key : FACTS[prefix];
}

/** The facts a list of OTLP/JSON spans carries. */
export const factsOf = (spans) =>
  new Set(spans.flatMap((s) => (s.attributes ?? []).map((kv) => factOf(kv.key))));

/**
 * Bytes per call of `spans` (one call's spans, OTLP/JSON) that carry a fact `other` lacks, in
 * protobuf and JSON, with those attributes listed. Events (autotel's exception events) count as
 * their attributes' facts.
 */
export function exclusiveBytes(spans, other) {
  const theirs = factsOf(other);
  const out = { protobuf: 0, json: 0, facts: new Set() };
  for (const s of spans) {
    for (const kv of s.attributes ?? []) {
      const fact = factOf(kv.key);
      if (theirs.has(fact)) continue;
      out.protobuf += keyValueSize(kv);
      out.json += jsonElementSize(kv);
      out.facts.add(fact);
    }
    for (const e of s.events ?? []) {
      if ((e.attributes ?? []).every((kv) => theirs.has(factOf(kv.key)))) continue;
      out.protobuf += eventSize(e);
      out.json += jsonElementSize(e);
      out.facts.add(`event ${e.name}`);
    }
  }
  return { ...out, facts: [...out.facts] };
}

/** One call's spans in a digest's last trace: one span per kind (Traceloop puts every call of a
 * client in one trace; its session span ends last, after these). */
export function callSpans(digest) {
  const seen = new Set();
  return digest.lastTrace.filter((s) => !seen.has(s.kind) && seen.add(s.kind));
}
