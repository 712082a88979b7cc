import {
  ValueType,
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
} from '@opentelemetry/api';
import {
  DURATION_BUCKETS_SECONDS,
  METRIC_CODE_OTHER,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_CLIENT_TOOL_FAILURES,
  METRIC_MCP_SERVER_OPERATION_DURATION,
  METRIC_MCP_SERVER_TOOL_FAILURES,
} from '../semconv.js';
import { BASELINE_CODES, PACKAGE_CODES } from '../tool-failure/constants.js';

/** The instruments the instrumentation records into. */
export interface McpInstruments {
  clientDuration: Histogram;
  serverDuration: Histogram;
  clientFailures: Counter;
  serverFailures: Counter;
}

/** Creates the instruments on `meter`. */
export function createInstruments(meter: Meter): McpInstruments {
  const histogram = (name: string, description: string): Histogram =>
    meter.createHistogram(name, {
      description,
      unit: 's',
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_SECONDS] },
    });
  return {
    clientDuration: histogram(
      METRIC_MCP_CLIENT_OPERATION_DURATION,
      'Duration of MCP requests as seen by the sender.',
    ),
    serverDuration: histogram(
      METRIC_MCP_SERVER_OPERATION_DURATION,
      'Duration of MCP requests as seen by the receiver.',
    ),
    clientFailures: meter.createCounter(METRIC_MCP_CLIENT_TOOL_FAILURES, {
      description: 'Tool calls that came back as failures, by tool, class and code.',
      unit: '{failure}',
      valueType: ValueType.INT,
    }),
    serverFailures: meter.createCounter(METRIC_MCP_SERVER_TOOL_FAILURES, {
      description: 'Tool calls that this server answered with a failure, by tool, class and code.',
      unit: '{failure}',
      valueType: ValueType.INT,
    }),
  };
}

const KNOWN_CODES = new Set<string>([
  ...Object.values(BASELINE_CODES).flat(),
  ...Object.keys(PACKAGE_CODES),
]);

/** The code as it may appear on a metric: known codes by name, anything else as `_OTHER`. */
export function metricCode(code: string, allowList: ReadonlySet<string>): string {
  return KNOWN_CODES.has(code) || allowList.has(code) ? code : METRIC_CODE_OTHER;
}

/** Seconds between two `performance.now()` readings. */
export function secondsSince(start: number, end: number): number {
  return Math.max(0, end - start) / 1000;
}

export type { Attributes };
