// What OTLP/JSON request bodies carried, in a form the volume report can print and the
// tail-sampling policy can be applied to: every span's trace ID, status and the attributes the
// shipped policy reads; the spans of the last trace whole (as exported); the metric streams
// and one log record.

/** An OTLP AnyValue as a plain value (enough for the attributes the policy reads). */
function plain(v) {
  if (v === undefined) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  return v;
}

/** The attributes as `{ key: value }`. */
export function attributesOf(list) {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

const flat = (bodies, outer, inner, items) =>
  bodies.flatMap((b) =>
    (b[outer] ?? []).flatMap((r) => (r[inner] ?? []).flatMap((s) => s[items] ?? [])),
  );

/** The digest of one run's JSON bodies by signal (`{ traces, metrics, logs }`). */
export function digestOf(bodies) {
  const spans = flat(bodies.traces, 'resourceSpans', 'scopeSpans', 'spans');
  const last = spans.at(-1)?.traceId;
  const metricList = flat(bodies.metrics, 'resourceMetrics', 'scopeMetrics', 'metrics');
  const records = flat(bodies.logs, 'resourceLogs', 'scopeLogs', 'logRecords');
  return {
    spans: spans.map((s) => ({
      traceId: s.traceId,
      status: s.status?.code ?? 0,
      attributes: attributesOf(s.attributes),
    })),
    // Whole, as exported (a peer that puts every call in one trace: its first spans).
    lastTrace: spans.filter((s) => s.traceId === last).slice(0, 4),
    lastTraceSpans: spans.filter((s) => s.traceId === last).length,
    metrics: metricList.map((m) => {
      const points = (m.sum ?? m.histogram ?? m.gauge ?? m.exponentialHistogram)?.dataPoints ?? [];
      return {
        name: m.name,
        points: points.length,
        attributes: [...new Set(points.flatMap((p) => (p.attributes ?? []).map((kv) => kv.key)))],
      };
    }),
    logRecord: records.at(-1) ?? null,
    logRecords: records.length,
  };
}
