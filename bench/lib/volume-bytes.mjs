// What one attribute, event or status message of a span adds to an OTLP request, in protobuf
// and in JSON: the failing call's extra bytes listed field by field. Protobuf sizes follow the
// wire format of opentelemetry-proto (a length-delimited KeyValue in Span.attributes, field 9);
// JSON sizes are those of the OTLP/JSON text the exporter writes (the element and its comma).

/** Bytes of `n` as a protobuf varint. */
export function varintSize(n) {
  let size = 1;
  for (let v = BigInt(n); v >= 128n; v >>= 7n) size++;
  return size;
}

/** A length-delimited field of `length` bytes: tag, length, content. */
const delimited = (length) => 1 + varintSize(length) + length;
const utf8 = (s) => Buffer.byteLength(s, 'utf8');

/** Protobuf bytes of an OTLP/JSON AnyValue. */
export function anyValueSize(v) {
  if ('stringValue' in v) return delimited(utf8(v.stringValue));
  if ('boolValue' in v) return 2;
  if ('intValue' in v) {
    const n = BigInt(v.intValue);
    return 1 + (n < 0n ? 10 : varintSize(n));
  }
  if ('doubleValue' in v) return 9;
  if ('arrayValue' in v)
    return delimited(
      (v.arrayValue.values ?? []).reduce((a, x) => a + delimited(anyValueSize(x)), 0),
    );
  if ('kvlistValue' in v)
    return delimited((v.kvlistValue.values ?? []).reduce((a, kv) => a + keyValueSize(kv), 0));
  return 0;
}

/** Protobuf bytes of one KeyValue as it sits in a repeated attributes field. */
export function keyValueSize(kv) {
  return delimited(delimited(utf8(kv.key)) + delimited(anyValueSize(kv.value)));
}

/** Protobuf bytes of one span event (Span.events, field 11): time (fixed64), name, attributes. */
export function eventSize(e) {
  return delimited(
    9 + delimited(utf8(e.name)) + (e.attributes ?? []).reduce((a, kv) => a + keyValueSize(kv), 0),
  );
}

/** JSON bytes of one element of an OTLP/JSON array, with its separating comma. */
export const jsonElementSize = (x) => Buffer.byteLength(JSON.stringify(x), 'utf8') + 1;

/**
 * The fields a failing call's span has that the ok call's span of the same kind lacks:
 * `[{ field, value, protobuf, json }]`, attributes first, then the status message and events.
 */
export function extraFields(failSpan, okSpan) {
  const okKeys = new Set((okSpan.attributes ?? []).map((kv) => kv.key));
  const rows = (failSpan.attributes ?? [])
    .filter((kv) => !okKeys.has(kv.key))
    .map((kv) => ({
      field: kv.key,
      value: JSON.stringify(Object.values(kv.value)[0]),
      protobuf: keyValueSize(kv),
      json: jsonElementSize(kv),
    }));
  if ((failSpan.status?.code ?? 0) !== (okSpan.status?.code ?? 0))
    rows.push({
      field: 'status.code',
      value: String(failSpan.status.code),
      protobuf: 1 + varintSize(failSpan.status.code),
      json: utf8(`"code":${failSpan.status.code}`),
    });
  const message = failSpan.status?.message;
  if (message !== undefined && message !== '' && (okSpan.status?.message ?? '') === '')
    rows.push({
      field: 'status.message',
      value: JSON.stringify(message),
      protobuf: delimited(utf8(message)),
      json: utf8(`,"message":${JSON.stringify(message)}`),
    });
  for (const e of failSpan.events ?? [])
    rows.push({
      field: `event ${e.name}`,
      value: (e.attributes ?? []).map((kv) => kv.key).join(', '),
      protobuf: eventSize(e),
      json: jsonElementSize(e),
    });
  return rows;
}
