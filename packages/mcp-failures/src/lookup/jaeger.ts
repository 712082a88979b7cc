/**
 * Jaeger query API addresses and answers, for `mcp-failures lookup --jaeger-url`. Pure: the
 * caller does the HTTP requests.
 */
import { ATTR_MCP_TOOL_FAILURE_CORRELATION_ID } from '@omcp/instrumentation-mcp/semconv';

function trimSlash(base: string): string {
  return base.replace(/\/+$/, '');
}

/** `GET {base}/api/v3/traces/{traceId}`: OTLP/JSON in `{"result": ...}`, 404 when unknown. */
export function jaegerTraceUrl(base: string, traceId: string): string {
  return `${trimSlash(base)}/api/v3/traces/${encodeURIComponent(traceId)}`;
}

/**
 * The tag search on Jaeger's internal HTTP API for a correlationId that is not a trace ID:
 * `GET {base}/api/traces?service=S&tags={"mcp.tool.failure.correlation_id":"X"}`, over the last
 * `lookbackMs` before `nowMs`.
 */
export function jaegerTagSearchUrl(
  base: string,
  service: string,
  correlationId: string,
  nowMs: number,
  lookbackMs: number,
): string {
  return jaegerSearchUrl(
    base,
    service,
    { [ATTR_MCP_TOOL_FAILURE_CORRELATION_ID]: correlationId },
    nowMs - lookbackMs,
    nowMs,
    20,
  );
}

/**
 * `GET {base}/api/traces?service=S&tags={...}&start&end&limit`: the traces of `service` with a
 * span carrying every tag, between two epoch-millisecond times (the API takes microseconds).
 */
export function jaegerSearchUrl(
  base: string,
  service: string,
  tags: Record<string, string>,
  startMs: number,
  endMs: number,
  limit: number,
): string {
  const params = new URLSearchParams({
    service,
    tags: JSON.stringify(tags),
    start: String(Math.trunc(startMs) * 1000),
    end: String(Math.trunc(endMs) * 1000),
    limit: String(limit),
  });
  return `${trimSlash(base)}/api/traces?${params.toString()}`;
}

/** The trace IDs of a `/api/traces` answer (`{"data": [{"traceID": ...}]}`). */
export function traceIdsFromTagSearch(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || !('data' in body) || !Array.isArray(body.data)) {
    return [];
  }
  const ids: string[] = [];
  for (const trace of body.data as unknown[]) {
    if (typeof trace === 'object' && trace !== null && 'traceID' in trace) {
      const id = trace.traceID;
      if (typeof id === 'string') ids.push(id.toLowerCase().padStart(32, '0'));
    }
  }
  return ids;
}
