import {
  ValueType,
  type Attributes,
  type Histogram,
  type Meter,
  type ObservableResult,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  DURATION_BUCKETS_SECONDS,
  ERROR_TYPE_VALUE_TOOL_ERROR,
  METRIC_ATTR_OTEL_METRIC_OVERFLOW,
  METRIC_CODE_OTHER,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_CLIENT_TOOL_FAILURES,
  METRIC_MCP_SERVER_OPERATION_DURATION,
  METRIC_MCP_SERVER_TOOL_FAILURES,
} from '../semconv.js';
import { BASELINE_CODES, PACKAGE_CODES } from '@omcp/tool-failure';

/** The instruments the instrumentation records into. */
export interface McpInstruments {
  clientDuration: Histogram;
  serverDuration: Histogram;
  clientFailures: FailureTally;
  serverFailures: FailureTally;
}

/** Distinct attribute sets a failure counter keeps before counting the rest as overflow. */
export const FAILURE_TALLY_LIMIT = 2000;
/** The attribute the OpenTelemetry metrics SDK puts on its own overflow point. */

interface TallyEntry {
  readonly attrs: Attributes;
  value: number;
}

/**
 * A failure counter counted in-process and reported through an asynchronous counter at each
 * collection: adding one is a lookup in nested maps and an increment, with no attribute object
 * built and no attribute hash computed per failure (a synchronous counter's `add` does both).
 * The exported metric is the same monotonic sum a synchronous counter would give, cumulative or
 * delta as the reader asks. Like the SDK's cardinality limit, distinct attribute sets beyond
 * `limit` are counted on one point with `otel.metric.overflow=true`.
 */
export class FailureTally {
  private readonly byTool = new Map<
    string | undefined,
    Map<string | undefined, Map<string | undefined, TallyEntry>>
  >();
  private readonly entries: TallyEntry[] = [];
  private overflow: TallyEntry | undefined;

  constructor(private readonly limit: number = FAILURE_TALLY_LIMIT) {}

  /** Counts one failure of `tool` (class and code when the failure object was valid). */
  add(tool: string | undefined, cls: string | undefined, code: string | undefined): void {
    let byClass = this.byTool.get(tool);
    let byCode = byClass?.get(cls);
    let entry = byCode?.get(code);
    if (entry === undefined) {
      if (this.entries.length >= this.limit) {
        this.overflow ??= {
          attrs: Object.freeze({ [METRIC_ATTR_OTEL_METRIC_OVERFLOW]: true }),
          value: 0,
        };
        this.overflow.value++;
        return;
      }
      const attrs: Attributes = { [ATTR_ERROR_TYPE]: ERROR_TYPE_VALUE_TOOL_ERROR };
      if (tool !== undefined) attrs[ATTR_GEN_AI_TOOL_NAME] = tool;
      if (cls !== undefined) attrs[ATTR_MCP_TOOL_FAILURE_CLASS] = cls;
      if (code !== undefined) attrs[ATTR_MCP_TOOL_FAILURE_CODE] = code;
      entry = { attrs: Object.freeze(attrs), value: 0 };
      this.entries.push(entry);
      if (byClass === undefined) this.byTool.set(tool, (byClass = new Map()));
      if (byCode === undefined) byClass.set(cls, (byCode = new Map()));
      byCode.set(code, entry);
    }
    entry.value++;
  }

  /** Reports every count so far (the callback of the asynchronous counter). */
  observe(result: ObservableResult): void {
    for (const entry of this.entries) result.observe(entry.value, entry.attrs);
    if (this.overflow !== undefined) result.observe(this.overflow.value, this.overflow.attrs);
  }
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
    clientFailures: failureCounter(
      meter,
      METRIC_MCP_CLIENT_TOOL_FAILURES,
      'Tool calls that came back as failures, by tool, class and code.',
    ),
    serverFailures: failureCounter(
      meter,
      METRIC_MCP_SERVER_TOOL_FAILURES,
      'Tool calls that this server answered with a failure, by tool, class and code.',
    ),
  };
}

function failureCounter(meter: Meter, name: string, description: string): FailureTally {
  const tally = new FailureTally();
  meter
    .createObservableCounter(name, { description, unit: '{failure}', valueType: ValueType.INT })
    .addCallback((result) => tally.observe(result));
  return tally;
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
