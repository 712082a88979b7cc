/**
 * Prometheus spellings of the package's metric and attribute names, derived from `src/semconv.ts`
 * with the OpenTelemetry-to-Prometheus rules (underscore escaping): `.` becomes `_`, monotonic
 * counters get `_total`, `{...}` units add nothing. Histograms in seconds get `_seconds` through
 * the collector but not from `@opentelemetry/exporter-prometheus`, hence `histogramSelector`.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_TOOL_CALL_OUTCOME,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_CLIENT_TOOL_FAILURES,
  METRIC_MCP_SERVER_OPERATION_DURATION,
  METRIC_MCP_SERVER_TOOL_FAILURES,
  METRIC_MCP_TOOL_CALL_RETRIES,
} from '../../src/semconv.js';

/** An OpenTelemetry attribute or metric name with Prometheus underscore escaping. */
export function promName(otelName: string): string {
  return otelName.replace(/[^a-zA-Z0-9_]/g, '_');
}

/** The Prometheus name of an OpenTelemetry monotonic counter with a `{...}` unit. */
export function promCounter(otelName: string): string {
  return `${promName(otelName)}_total`;
}

/**
 * A `__name__` matcher for one series of a seconds histogram that works on both paths:
 * `mcp_server_operation_duration_bucket` (direct scrape) and `..._seconds_bucket` (collector).
 */
export function histogramNameRegex(otelName: string, suffix: 'bucket' | 'count' | 'sum'): string {
  return `${promName(otelName)}(?:_seconds)?_${suffix}`;
}

/** Prometheus label names of the attributes the package puts on its metrics. */
export const LABEL = Object.freeze({
  tool: promName(ATTR_GEN_AI_TOOL_NAME),
  failureClass: promName(ATTR_MCP_TOOL_FAILURE_CLASS),
  failureCode: promName(ATTR_MCP_TOOL_FAILURE_CODE),
  errorType: promName(ATTR_ERROR_TYPE),
  outcome: promName(ATTR_MCP_TOOL_CALL_OUTCOME),
  method: promName(ATTR_MCP_METHOD_NAME),
  rpcStatusCode: promName(ATTR_RPC_RESPONSE_STATUS_CODE),
});

/** Prometheus metric names (counters) and histogram base names. */
export const METRIC = Object.freeze({
  serverFailures: promCounter(METRIC_MCP_SERVER_TOOL_FAILURES),
  clientFailures: promCounter(METRIC_MCP_CLIENT_TOOL_FAILURES),
  retries: promCounter(METRIC_MCP_TOOL_CALL_RETRIES),
  serverDuration: promName(METRIC_MCP_SERVER_OPERATION_DURATION),
  clientDuration: promName(METRIC_MCP_CLIENT_OPERATION_DURATION),
});

/** The OpenTelemetry histogram names, for `histogramNameRegex`. */
export const HISTOGRAM = Object.freeze({
  server: METRIC_MCP_SERVER_OPERATION_DURATION,
  client: METRIC_MCP_CLIENT_OPERATION_DURATION,
});
