/**
 * Jaeger query API addresses and answers, for `mcp-failures lookup --jaeger-url`. Pure: the
 * caller does the HTTP requests.
 */
import { ATTR_MCP_TOOL_FAILURE_CORRELATION_ID } from '../semconv.js';

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
 * `lookbackMs` before `nowMs` (the API takes microseconds).
 */
export function jaegerTagSearchUrl(
  base: string,
  service: string,
  correlationId: string,
  nowMs: number,
  lookbackMs: number,
): string {
  const params = new URLSearchParams({
    service,
    tags: JSON.stringify({ [ATTR_MCP_TOOL_FAILURE_CORRELATION_ID]: correlationId }),
    start: String((nowMs - lookbackMs) * 1000),
    end: String(nowMs * 1000),
    limit: '20',
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
