/**
 * Reading OTLP/JSON trace data (what the OTLP file exporter writes, what OTLP/HTTP JSON exporters
 * POST, and what Jaeger's `/api/v3/traces/{id}` returns) into flat, typed spans, and the log
 * records beside them (for a failure whose trace was not sampled). Pure: no I/O.
 */
import { RESOURCE_ATTR_SERVICE_NAME } from '@omcp/instrumentation-mcp/semconv';

/** An attribute value, decoded from OTLP's `AnyValue`. */
export type AttributeValue = string | number | boolean | AttributeValue[] | null;

/** A span event. */
export interface LookupEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: Record<string, AttributeValue>;
}

/** The span kinds, named as OTLP names them without the prefix. */
export type LookupSpanKind =
  'UNSPECIFIED' | 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';

/** One span with its resource's service name. */
export interface LookupSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: LookupSpanKind;
  service: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  status: { code: 'UNSET' | 'OK' | 'ERROR'; message: string | undefined };
  attributes: Record<string, AttributeValue>;
  events: LookupEvent[];
}

/** One log record with its resource's service name and its trace context, if any. */
export interface LookupLogRecord {
  traceId: string | undefined;
  spanId: string | undefined;
  service: string;
  timeUnixNano: bigint;
  severityText: string | undefined;
  body: AttributeValue;
  attributes: Record<string, AttributeValue>;
}

const KINDS: readonly LookupSpanKind[] = [
  'UNSPECIFIED',
  'INTERNAL',
  'SERVER',
  'CLIENT',
  'PRODUCER',
  'CONSUMER',
];
const STATUS = ['UNSET', 'OK', 'ERROR'] as const;

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function array(value: Json): Json[] {
  return Array.isArray(value) ? value : [];
}

/** Arrays nested deeper than this (OTLP allows it, no SDK makes it) are read as null. */
const MAX_ARRAY_DEPTH = 32;

function decodeValue(value: Json, depth = 0): AttributeValue {
  if (!isObject(value) || depth > MAX_ARRAY_DEPTH) return null;
  if ('stringValue' in value) return String(value.stringValue);
  if ('boolValue' in value) return value.boolValue === true;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value && isObject(value.arrayValue)) {
    return array(value.arrayValue.values).map((v) => decodeValue(v, depth + 1));
  }
  if ('bytesValue' in value) return String(value.bytesValue);
  return null;
}

function decodeAttributes(list: Json): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const item of array(list)) {
    if (isObject(item) && typeof item.key === 'string') out[item.key] = decodeValue(item.value);
  }
  return out;
}

/** An OTLP/JSON ID: lower-case hex; protobuf JSON (base64) is converted. */
function decodeId(value: Json, bytes: number): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)) return value.toLowerCase();
  const decoded = Buffer.from(value, 'base64');
  return decoded.length === bytes ? decoded.toString('hex') : value.toLowerCase();
}

function decodeTime(value: Json): bigint {
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isFinite(value)) return BigInt(Math.round(value));
  return 0n;
}

function decodeEnum<T extends string>(value: Json, names: readonly T[], prefix: string): T {
  if (typeof value === 'number') return names[value] ?? (names[0] as T);
  if (typeof value === 'string') {
    const name = value.startsWith(prefix) ? value.slice(prefix.length) : value;
    const found = names.find((n) => n === name);
    if (found !== undefined) return found;
  }
  return names[0] as T;
}

/** The `service.name` of an OTLP resource. */
function serviceOf(resource: Json): string {
  const name = isObject(resource)
    ? decodeAttributes(resource.attributes)[RESOURCE_ATTR_SERVICE_NAME]
    : undefined;
  return typeof name === 'string' ? name : 'unknown_service';
}

/** The spans of one OTLP/JSON `TracesData` object (`{"resourceSpans": [...]}`). */
export function spansFromTracesData(data: Json): LookupSpan[] {
  const spans: LookupSpan[] = [];
  if (!isObject(data)) return spans;
  for (const resourceSpans of array(data.resourceSpans)) {
    if (!isObject(resourceSpans)) continue;
    const service = serviceOf(resourceSpans.resource);
    const scopes = [
      ...array(resourceSpans.scopeSpans),
      ...array(resourceSpans.instrumentationLibrarySpans),
    ];
    for (const scopeSpans of scopes) {
      if (!isObject(scopeSpans)) continue;
      for (const span of array(scopeSpans.spans)) {
        if (!isObject(span)) continue;
        const traceId = decodeId(span.traceId, 16);
        const spanId = decodeId(span.spanId, 8);
        if (traceId === undefined || spanId === undefined) continue;
        const status = isObject(span.status) ? span.status : {};
        spans.push({
          traceId,
          spanId,
          parentSpanId: decodeId(span.parentSpanId, 8),
          name: typeof span.name === 'string' ? span.name : '',
          kind: decodeEnum(span.kind, KINDS, 'SPAN_KIND_'),
          service,
          startTimeUnixNano: decodeTime(span.startTimeUnixNano),
          endTimeUnixNano: decodeTime(span.endTimeUnixNano),
          status: {
            code: decodeEnum(status.code, STATUS, 'STATUS_CODE_'),
            message:
              typeof status.message === 'string' && status.message !== ''
                ? status.message
                : undefined,
          },
          attributes: decodeAttributes(span.attributes),
          events: array(span.events)
            .filter(isObject)
            .map((event) => ({
              name: typeof event.name === 'string' ? event.name : '',
              timeUnixNano: decodeTime(event.timeUnixNano),
              attributes: decodeAttributes(event.attributes),
            })),
        });
      }
    }
  }
  return spans;
}

/** Why a text could not be read as OTLP/JSON. */
export class OtlpParseError extends Error {
  override readonly name = 'OtlpParseError';
}

/**
 * Spans from OTLP/JSON text: one `TracesData` object per line (the OTLP file exporter's format),
 * or a single JSON document, which may also be Jaeger's `{"result": TracesData}` envelope.
 * Throws `OtlpParseError` naming the first line that is not JSON.
 */
export function parseOtlpJson(text: string): LookupSpan[] {
  const spans: LookupSpan[] = [];
  forEachDocument(text, (document) => spans.push(...spansFromDocument(document)));
  return spans;
}

function spansFromDocument(document: Json): LookupSpan[] {
  if (isObject(document) && isObject(document.result)) return spansFromTracesData(document.result);
  return spansFromTracesData(document);
}

/** The log records of one OTLP/JSON `LogsData` object (`{"resourceLogs": [...]}`). */
export function logRecordsFromLogsData(data: Json): LookupLogRecord[] {
  const records: LookupLogRecord[] = [];
  if (!isObject(data)) return records;
  for (const resourceLogs of array(data.resourceLogs)) {
    if (!isObject(resourceLogs)) continue;
    const service = serviceOf(resourceLogs.resource);
    for (const scopeLogs of array(resourceLogs.scopeLogs)) {
      if (!isObject(scopeLogs)) continue;
      for (const record of array(scopeLogs.logRecords)) {
        if (!isObject(record)) continue;
        records.push({
          traceId: decodeId(record.traceId, 16),
          spanId: decodeId(record.spanId, 8),
          service,
          timeUnixNano: decodeTime(record.timeUnixNano ?? record.observedTimeUnixNano),
          severityText:
            typeof record.severityText === 'string' && record.severityText !== ''
              ? record.severityText
              : undefined,
          body: decodeValue(record.body),
          attributes: decodeAttributes(record.attributes),
        });
      }
    }
  }
  return records;
}

/** Spans and log records from OTLP/JSON text, read as {@link parseOtlpJson} reads spans. */
export function parseOtlpJsonSignals(text: string): {
  spans: LookupSpan[];
  logs: LookupLogRecord[];
} {
  const spans: LookupSpan[] = [];
  const logs: LookupLogRecord[] = [];
  forEachDocument(text, (document) => {
    spans.push(...spansFromDocument(document));
    logs.push(...logRecordsFromLogsData(document));
  });
  return { spans, logs };
}

/** Calls `visit` with each JSON document of `text` (one document, or JSON lines). */
function forEachDocument(text: string, visit: (document: Json) => void): void {
  const trimmed = text.trim();
  if (trimmed === '') return;
  let whole: Json;
  try {
    whole = JSON.parse(trimmed) as Json;
  } catch {
    whole = undefined;
  }
  if (whole !== undefined) {
    visit(whole);
    return;
  }
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let document: Json;
    try {
      document = JSON.parse(line) as Json;
    } catch {
      throw new OtlpParseError(`line ${index + 1} is not JSON`);
    }
    visit(document);
  });
}
