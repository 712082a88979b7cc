/**
 * Searching for tool failures by what an alert or an operator knows (class, code, tool, service,
 * a time range) instead of by one correlationId, and reading that search from a delivered
 * Alertmanager notification. Pure: the caller reads the sources.
 */
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  LOG_ATTR_EXCEPTION_MESSAGE,
  METRIC_CODE_OTHER,
} from '@omcp/instrumentation-mcp/semconv';
import { firstLine } from '@omcp/tool-failure/wire';
import { failureFields } from './chain.js';
import type { LookupLogRecord, LookupSpan } from './otlp.js';

/** What to look for; every field given must hold. Times are epoch milliseconds. */
export interface FailureQuery {
  class?: string;
  code?: string;
  tool?: string;
  service?: string;
  sinceMs?: number;
  untilMs?: number;
}

/** One failing call found by a search. */
export interface FailureHit {
  timeUnixNano: bigint;
  service: string;
  tool: string | undefined;
  class: string;
  code: string | undefined;
  correlationId: string;
  traceId: string;
  /** The first line of the failure's message (span status, else the failure log record). */
  message: string | undefined;
}

/** The Prometheus labels of the alert rules, as `observability/prometheus/rules` sets them. */
export const ALERT_LABELS = Object.freeze({
  class: 'mcp_tool_failure_class',
  code: 'mcp_tool_failure_code',
  tool: 'gen_ai_tool_name',
  service: 'service',
});

/** The label that names the service where an alert has no `service` label: the scrape job. */
const ALERT_SERVICE_FALLBACK = 'job';

/**
 * How far before an alert's `startsAt` the search starts: the alert rules look back 5 minutes
 * and wait up to 15 (`for`), so the failures that fired it are within 20 minutes before it.
 */
export const ALERT_LOOKBACK_MS = 20 * 60_000;

/**
 * The failing calls among `spans` that match `query`, newest first: one hit per correlationId,
 * taken from the span where the failure was produced (a server span when the trace has one,
 * else the client's). Log records give the message where the span has none.
 */
export function searchFailures(
  spans: readonly LookupSpan[],
  logs: readonly LookupLogRecord[],
  query: FailureQuery,
): FailureHit[] {
  const best = new Map<string, { span: LookupSpan; hit: FailureHit }>();
  for (const span of spans) {
    const fields = failureFields(span);
    if (fields === undefined || span.kind === 'INTERNAL') continue;
    const hit: FailureHit = {
      timeUnixNano: span.startTimeUnixNano,
      service: span.service,
      tool: str(span.attributes[ATTR_GEN_AI_TOOL_NAME]),
      class: fields.class,
      code: fields.code,
      correlationId: fields.correlationId ?? span.traceId,
      traceId: span.traceId,
      message: summaryLine(span.status.message),
    };
    const seen = best.get(hit.correlationId);
    if (seen === undefined || (seen.span.kind !== 'SERVER' && span.kind === 'SERVER'))
      best.set(hit.correlationId, { span, hit });
  }
  const hits = [...best.values()].map((b) => b.hit).filter((hit) => matches(hit, query));
  for (const hit of hits) hit.message ??= messageFromLogs(logs, hit.traceId);
  return hits.sort((a, b) => (a.timeUnixNano < b.timeUnixNano ? 1 : -1));
}

function matches(hit: FailureHit, q: FailureQuery): boolean {
  const ms = Number(hit.timeUnixNano / 1_000_000n);
  return (
    (q.class === undefined || hit.class === q.class) &&
    (q.code === undefined || hit.code === q.code) &&
    (q.tool === undefined || hit.tool === q.tool) &&
    (q.service === undefined || hit.service === q.service) &&
    (q.sinceMs === undefined || ms >= q.sinceMs) &&
    (q.untilMs === undefined || ms <= q.untilMs)
  );
}

function messageFromLogs(logs: readonly LookupLogRecord[], traceId: string): string | undefined {
  for (const record of logs) {
    if (record.traceId !== traceId) continue;
    if (record.attributes[ATTR_MCP_TOOL_FAILURE_CLASS] === undefined) continue;
    const message = record.attributes[LOG_ATTR_EXCEPTION_MESSAGE] ?? record.body;
    if (typeof message === 'string') return summaryLine(message);
  }
  return undefined;
}

/**
 * The searches a delivered Alertmanager webhook notification asks for: one per alert, from its
 * labels (class, code, tool, service) and from `startsAt` less {@link ALERT_LOOKBACK_MS} to
 * `endsAt` (or now, while it fires). Throws `TypeError` with one line when it is not one.
 */
export function queriesFromAlertNotification(payload: unknown): FailureQuery[] {
  const alerts = isObject(payload) && Array.isArray(payload.alerts) ? payload.alerts : undefined;
  if (alerts === undefined || alerts.length === 0)
    throw new TypeError('not an Alertmanager notification: no "alerts" list');
  return alerts.map((alert: unknown, i) => {
    if (!isObject(alert) || !isObject(alert.labels))
      throw new TypeError(`alert ${i + 1} has no labels`);
    const labels = alert.labels;
    const query: FailureQuery = {};
    for (const key of ['class', 'code', 'tool', 'service'] as const) {
      const value =
        labels[ALERT_LABELS[key]] ??
        (key === 'service' ? labels[ALERT_SERVICE_FALLBACK] : undefined);
      if (typeof value === 'string' && value !== '') query[key] = value;
    }
    // A metric's code outside the known ones is `_OTHER`: any code, then.
    if (query.code === METRIC_CODE_OTHER) delete query.code;
    const starts = typeof alert.startsAt === 'string' ? Date.parse(alert.startsAt) : NaN;
    if (Number.isFinite(starts)) query.sinceMs = starts - ALERT_LOOKBACK_MS;
    const ends = typeof alert.endsAt === 'string' ? Date.parse(alert.endsAt) : NaN;
    // A firing alert's endsAt is "0001-01-01T00:00:00Z" or a time ahead: no upper bound then.
    if (Number.isFinite(ends) && ends > starts && alert.status === 'resolved') query.untilMs = ends;
    return query;
  });
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `--since` / `--until`: a duration before `nowMs` (`90s`, `15m`, `2h`, `7d`) or a time
 * (ISO 8601, or epoch milliseconds). `undefined` when it is neither.
 */
export function parseTimeOrDuration(text: string, nowMs: number): number | undefined {
  const trimmed = text.trim();
  const duration = /^(\d+(?:\.\d+)?)([smhd])$/.exec(trimmed);
  if (duration !== null) return nowMs - Number(duration[1]) * (UNITS[duration[2]!] ?? 0);
  if (/^\d{10,}$/.test(trimmed)) return Number(trimmed);
  const time = /^\d{4}-\d{2}-\d{2}/.test(trimmed) ? Date.parse(trimmed) : NaN;
  return Number.isFinite(time) ? time : undefined;
}

/** The hits as a table: time, service, tool, class/code, correlationId, message. */
export function formatFailureList(hits: readonly FailureHit[], query: FailureQuery): string {
  const what = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) =>
      k.endsWith('Ms')
        ? `${k.slice(0, -2)}=${new Date(v as number).toISOString()}`
        : `${k}=${String(v)}`,
    )
    .join(' ');
  const lines = [`${hits.length} failure(s)${what === '' ? '' : ` where ${what}`}`];
  for (const h of hits)
    lines.push(
      [
        new Date(Number(h.timeUnixNano / 1_000_000n)).toISOString(),
        h.service,
        h.tool ?? '-',
        `${h.class}/${h.code ?? '-'}`,
        h.correlationId,
        h.message ?? '',
      ]
        .join('  ')
        .trimEnd(),
    );
  return `${lines.join('\n')}\n`;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function summaryLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = firstLine(text).trim();
  return line === '' ? undefined : line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The Jaeger tags of a search (class and code are span attributes; tool is too). */
export function jaegerTagsOf(query: FailureQuery): Record<string, string> {
  const tags: Record<string, string> = {};
  if (query.class !== undefined) tags[ATTR_MCP_TOOL_FAILURE_CLASS] = query.class;
  if (query.code !== undefined) tags[ATTR_MCP_TOOL_FAILURE_CODE] = query.code;
  if (query.tool !== undefined) tags[ATTR_GEN_AI_TOOL_NAME] = query.tool;
  return tags;
}
