/**
 * Finding a failure by its correlationId and arranging the spans of its trace into the failure
 * chain: the logical call, the client attempts, proxies, and the server. Pure: no I/O.
 */
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_TOOL_CALL_ATTEMPT,
  ATTR_MCP_TOOL_CALL_ATTEMPTS,
  ATTR_MCP_TOOL_CALL_OUTCOME,
  ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
  ATTR_MCP_TOOL_FAILURE_RETRYABLE,
  ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE,
  ATTR_MCP_TOOL_FAILURE_SOURCE,
  SPAN_NAME_MCP_TOOL_CALL,
} from '@omcp/instrumentation-mcp/semconv';
import type { AttributeValue, LookupLogRecord, LookupSpan } from './otlp.js';

/** Where a span sits in the chain. */
export type ChainRole = 'call' | 'attempt' | 'proxy-server' | 'proxy-client' | 'server' | 'client';

/** A span of the chain with its role and the chain spans below it. */
export interface ChainNode {
  span: LookupSpan;
  role: ChainRole;
  /** `mcp.tool.call.attempt` of an attempt span. */
  attempt: number | undefined;
  children: ChainNode[];
}

/** The failure fields recorded on a span. */
export interface SpanFailureFields {
  class: string;
  code: string | undefined;
  retryable: boolean | undefined;
  retryNotBefore: number | undefined;
  correlationId: string | undefined;
  agentGuidance: string | undefined;
  source: string | undefined;
}

/** One trace's failure chain. */
export interface FailureChain {
  traceId: string;
  /** The tool named by the chain's spans, if any. */
  tool: string | undefined;
  /** The failure where it was produced: the deepest span that carries a failure class. */
  failure: (SpanFailureFields & { span: LookupSpan }) | undefined;
  /** The outcome of the logical call, if a logical call span is in the trace. */
  outcome: string | undefined;
  attempts: number | undefined;
  /** The chain spans without a chain parent, ordered by start time. */
  roots: ChainNode[];
  spanCount: number;
  services: string[];
}

const TRACE_ID = /^[0-9a-f]{32}$/;

/** Whether a correlationId has the shape of a W3C trace ID (32 lower-case hex, not all zeros). */
export function isTraceId(id: string): boolean {
  return TRACE_ID.test(id) && !/^0+$/.test(id);
}

/**
 * The trace IDs a correlationId points at: the ID itself when it is a trace ID present in `spans`,
 * plus the traces of spans whose `mcp.tool.failure.correlation_id` equals it.
 */
export function traceIdsForCorrelationId(
  spans: readonly LookupSpan[],
  correlationId: string,
): string[] {
  const wanted = correlationId.trim();
  const normalized = wanted.toLowerCase();
  const ids = new Set<string>();
  for (const span of spans) {
    if (isTraceId(normalized) && span.traceId === normalized) ids.add(span.traceId);
    if (span.attributes[ATTR_MCP_TOOL_FAILURE_CORRELATION_ID] === wanted) ids.add(span.traceId);
  }
  return [...ids];
}

function str(value: AttributeValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: AttributeValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The failure fields of a span, or undefined when it carries no failure class. */
export function failureFields(span: LookupSpan): SpanFailureFields | undefined {
  const a = span.attributes;
  const cls = str(a[ATTR_MCP_TOOL_FAILURE_CLASS]);
  if (cls === undefined) return undefined;
  const retryable = a[ATTR_MCP_TOOL_FAILURE_RETRYABLE];
  return {
    class: cls,
    code: str(a[ATTR_MCP_TOOL_FAILURE_CODE]),
    retryable: typeof retryable === 'boolean' ? retryable : undefined,
    retryNotBefore: num(a[ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE]),
    correlationId: str(a[ATTR_MCP_TOOL_FAILURE_CORRELATION_ID]),
    agentGuidance: str(a[ATTR_MCP_TOOL_FAILURE_AGENT_GUIDANCE]),
    source: str(a[ATTR_MCP_TOOL_FAILURE_SOURCE]),
  };
}

/** Whether a span belongs to the MCP chain (as opposed to HTTP, database, ... spans). */
function isChainSpan(span: LookupSpan): boolean {
  const a = span.attributes;
  return (
    a[ATTR_MCP_METHOD_NAME] !== undefined ||
    a[ATTR_MCP_TOOL_CALL_ATTEMPTS] !== undefined ||
    a[ATTR_MCP_TOOL_FAILURE_CLASS] !== undefined ||
    span.name.startsWith('tools/call') ||
    span.name.startsWith(SPAN_NAME_MCP_TOOL_CALL)
  );
}

function byStart(a: ChainNode, b: ChainNode): number {
  const d = a.span.startTimeUnixNano - b.span.startTimeUnixNano;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The failure chain of one trace, from all spans at hand (other traces are ignored). */
export function buildFailureChain(spans: readonly LookupSpan[], traceId: string): FailureChain {
  const inTrace = spans.filter((s) => s.traceId === traceId);
  const byId = new Map(inTrace.map((s) => [s.spanId, s]));
  const chainSpans = inTrace.filter(isChainSpan);
  const nodes = new Map<string, ChainNode>(
    chainSpans.map((span) => [
      span.spanId,
      {
        span,
        role: 'client',
        attempt: num(span.attributes[ATTR_MCP_TOOL_CALL_ATTEMPT]),
        children: [],
      },
    ]),
  );

  // Parent = nearest ancestor that is a chain span (HTTP and other spans in between are skipped).
  const roots: ChainNode[] = [];
  for (const node of nodes.values()) {
    let parentId = node.span.parentSpanId;
    let parent: ChainNode | undefined;
    const seen = new Set<string>();
    while (parentId !== undefined && !seen.has(parentId)) {
      seen.add(parentId);
      parent = nodes.get(parentId);
      if (parent !== undefined) break;
      parentId = byId.get(parentId)?.parentSpanId;
    }
    if (parent !== undefined) parent.children.push(node);
    else roots.push(node);
  }

  const hasClientBelow = (node: ChainNode): boolean =>
    node.children.some((c) => c.span.kind === 'CLIENT' || hasClientBelow(c));
  const assign = (node: ChainNode, underServer: boolean): void => {
    const { kind, attributes } = node.span;
    if (kind === 'SERVER') node.role = hasClientBelow(node) ? 'proxy-server' : 'server';
    else if (kind === 'CLIENT') {
      node.role = underServer ? 'proxy-client' : node.attempt !== undefined ? 'attempt' : 'client';
    } else if (
      attributes[ATTR_MCP_TOOL_CALL_ATTEMPTS] !== undefined ||
      node.span.name.startsWith(SPAN_NAME_MCP_TOOL_CALL)
    ) {
      node.role = 'call';
    }
    node.children.sort(byStart);
    for (const child of node.children) assign(child, underServer || kind === 'SERVER');
  };
  roots.sort(byStart);
  for (const root of roots) assign(root, false);

  // The failure where it was produced: deepest span with a class, servers before clients, the
  // last attempt before earlier ones.
  let failure: FailureChain['failure'];
  let failureDepth = -1;
  const visit = (node: ChainNode, depth: number): void => {
    const fields = failureFields(node.span);
    const rank = depth * 2 + (node.role === 'server' ? 1 : 0);
    if (fields !== undefined && rank >= failureDepth) {
      failure = { ...fields, span: node.span };
      failureDepth = rank;
    }
    for (const child of node.children) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);

  const call = [...nodes.values()].find((n) => n.role === 'call');
  const tool = chainSpans
    .map((s) => str(s.attributes[ATTR_GEN_AI_TOOL_NAME]))
    .find((t) => t !== undefined);
  return {
    traceId,
    tool,
    failure,
    outcome: call === undefined ? undefined : str(call.span.attributes[ATTR_MCP_TOOL_CALL_OUTCOME]),
    attempts:
      call === undefined ? undefined : num(call.span.attributes[ATTR_MCP_TOOL_CALL_ATTEMPTS]),
    roots,
    spanCount: inTrace.length,
    services: [...new Set(inTrace.map((s) => s.service))].sort(),
  };
}

/**
 * The log records that belong to a `correlationId` whose trace kept no span (a sampler dropped
 * it): by trace ID (the `correlationId` is the trace ID) or by the record's own
 * `mcp.tool.failure.correlation_id`.
 */
export function logRecordsForCorrelationId(
  records: readonly LookupLogRecord[],
  correlationId: string,
): LookupLogRecord[] {
  const wanted = correlationId.trim();
  const normalized = wanted.toLowerCase();
  return records.filter(
    (r) =>
      (isTraceId(normalized) && r.traceId === normalized) ||
      r.attributes[ATTR_MCP_TOOL_FAILURE_CORRELATION_ID] === wanted,
  );
}
