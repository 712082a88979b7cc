/**
 * Plain-text rendering of a failure chain for operators. Pure: no I/O, no colours, no clock.
 */
import {
  ATTR_MCP_TOOL_CALL_OUTCOME,
  ATTR_MCP_TOOL_CALL_ATTEMPTS,
  LOG_ATTR_EXCEPTION_STACKTRACE,
} from '@omcp/instrumentation-mcp/semconv';
import { failureFields, type ChainNode, type ChainRole, type FailureChain } from './chain.js';
import type { AttributeValue, LookupEvent, LookupLogRecord, LookupSpan } from './otlp.js';

const ROLE_LABEL: Record<ChainRole, string> = {
  call: 'logical call',
  attempt: 'client attempt',
  client: 'client',
  'proxy-server': 'proxy (server side)',
  'proxy-client': 'proxy (client side)',
  server: 'server',
};

/** A duration in nanoseconds as `12.3 ms` or `1.23 s`. */
export function formatDuration(nanos: bigint): string {
  const ms = Number(nanos) / 1e6;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

function isoFromNanos(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

function formatValue(value: AttributeValue): string {
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  return String(value);
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function roleLabel(node: ChainNode): string {
  return node.role === 'attempt' ? `client attempt ${node.attempt ?? '?'}` : ROLE_LABEL[node.role];
}

function spanLine(node: ChainNode): string {
  const { span } = node;
  const parts = [
    `${roleLabel(node)}: ${span.name}`,
    `[${span.kind} ${span.service}]`,
    formatDuration(span.endTimeUnixNano - span.startTimeUnixNano),
  ];
  if (span.status.code === 'ERROR') parts.push('ERROR');
  const failure = failureFields(span);
  if (failure !== undefined) parts.push(`${failure.class}/${failure.code ?? '?'}`);
  const attempts = span.attributes[ATTR_MCP_TOOL_CALL_ATTEMPTS];
  if (attempts !== undefined) parts.push(`attempts=${formatValue(attempts)}`);
  const outcome = span.attributes[ATTR_MCP_TOOL_CALL_OUTCOME];
  if (outcome !== undefined) parts.push(`outcome=${formatValue(outcome)}`);
  return parts.join('  ');
}

/** A span event as one line, with its offset from the span start. Stack traces are left out. */
function eventLine(span: LookupSpan, event: LookupEvent): string {
  const offset = formatDuration(event.timeUnixNano - span.startTimeUnixNano);
  const attrs = Object.entries(event.attributes)
    .filter(([key]) => key !== LOG_ATTR_EXCEPTION_STACKTRACE)
    .map(([key, value]) => `${key}=${oneLine(formatValue(value), 120)}`);
  return `event +${offset} ${event.name}${attrs.length > 0 ? `  ${attrs.join(' ')}` : ''}`;
}

function renderNode(node: ChainNode, depth: number, lines: string[]): void {
  const indent = '  '.repeat(depth + 1);
  lines.push(`${indent}${spanLine(node)}`);
  if (node.span.status.code === 'ERROR' && node.span.status.message !== undefined) {
    lines.push(`${indent}  status: ${oneLine(node.span.status.message)}`);
  }
  for (const event of node.span.events) lines.push(`${indent}  ${eventLine(node.span, event)}`);
  for (const child of node.children) renderNode(child, depth + 1, lines);
}

/** The report printed by `mcp-failures lookup`. */
export function formatFailureChain(chain: FailureChain): string {
  const lines: string[] = [];
  lines.push(
    `trace ${chain.traceId}  (${chain.spanCount} spans; services: ${chain.services.join(', ')})`,
  );
  if (chain.tool !== undefined) lines.push(`tool: ${chain.tool}`);
  const f = chain.failure;
  if (f === undefined) {
    lines.push('failure: none recorded on the spans of this trace');
  } else {
    const hints = [
      f.retryable === undefined ? undefined : f.retryable ? 'retryable' : 'not retryable',
      f.retryNotBefore === undefined
        ? undefined
        : `retry not before ${new Date(f.retryNotBefore).toISOString()}`,
    ].filter((h): h is string => h !== undefined);
    lines.push(
      `failure: ${f.class} / ${f.code ?? '(no code)'}${hints.length > 0 ? ` (${hints.join(', ')})` : ''}`,
    );
    lines.push(
      `  at: ${f.span.name} [${f.span.kind} ${f.span.service}] ${isoFromNanos(f.span.startTimeUnixNano)}`,
    );
    if (f.agentGuidance !== undefined) lines.push(`  guidance: ${oneLine(f.agentGuidance, 500)}`);
    if (f.correlationId !== undefined) lines.push(`  correlationId: ${f.correlationId}`);
    if (f.source !== undefined) lines.push(`  produced by: ${f.source}`);
  }
  if (chain.outcome !== undefined || chain.attempts !== undefined) {
    lines.push(`call: outcome ${chain.outcome ?? '?'} after ${chain.attempts ?? '?'} attempt(s)`);
  }
  lines.push('chain:');
  if (chain.roots.length === 0) lines.push('  (no MCP spans in this trace)');
  for (const root of chain.roots) renderNode(root, 0, lines);
  return `${lines.join('\n')}\n`;
}

/**
 * The report for a failure whose trace kept no span (the sampler dropped it) but whose log
 * records were kept: they carry the trace ID, the failure and the exception.
 */
export function formatUnsampledFailure(
  correlationId: string,
  records: readonly LookupLogRecord[],
): string {
  const lines = [
    `trace ${correlationId}: not sampled (no span of it was kept); ${records.length} log record(s) of the failure:`,
  ];
  for (const record of records) {
    const head = [
      isoFromNanos(record.timeUnixNano),
      record.severityText ?? '',
      `[${record.service}]`,
      oneLine(formatValue(record.body), 300),
    ].filter((p) => p !== '');
    lines.push(`  ${head.join('  ')}`);
    for (const [key, value] of Object.entries(record.attributes)) {
      if (key === LOG_ATTR_EXCEPTION_STACKTRACE) continue;
      lines.push(`    ${key}: ${oneLine(formatValue(value), 300)}`);
    }
    const stack = record.attributes[LOG_ATTR_EXCEPTION_STACKTRACE];
    if (typeof stack === 'string')
      lines.push(`    ${LOG_ATTR_EXCEPTION_STACKTRACE}: ${oneLine(stack, 300)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The log records of a trace beside its chain, in time order: the package's failure record and
 * the application's own log lines (instrumentation-pino/-winston put the trace and span in
 * them), each with the span it was written in. Empty when there are none.
 */
export function formatTraceLogs(
  records: readonly LookupLogRecord[],
  spans: readonly LookupSpan[],
): string {
  if (records.length === 0) return '';
  const names = new Map(spans.map((s) => [s.spanId, s.name]));
  const lines = [`logs (${records.length}, in time order):`];
  for (const record of records) {
    const span = record.spanId === undefined ? undefined : names.get(record.spanId);
    const head = [
      isoFromNanos(record.timeUnixNano),
      record.severityText ?? '',
      `[${record.service}]`,
      span === undefined ? '' : `in ${span}:`,
      oneLine(formatValue(record.body), 300),
    ].filter((p) => p !== '');
    lines.push(`  ${head.join('  ')}`);
  }
  return `${lines.join('\n')}\n`;
}
