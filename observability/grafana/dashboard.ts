/**
 * The Grafana dashboard "MCP tool failures", typed against `@grafana/schema`. `npm run dashboards`
 * writes it to `dashboards/mcp-tool-failures.json`; a test checks the committed file is current
 * and that every PromQL expression here passes `promtool check rules`.
 */
import type { Dashboard, DataQuery, DataSourceRef, Panel, RowPanel } from '@grafana/schema';
import { ThresholdsMode, VariableHide, VariableRefresh, VariableSort } from '@grafana/schema';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  TOOL_CALL_OUTCOMES,
} from '../../src/semconv.js';
import { HISTOGRAM, LABEL, METRIC, histogramNameRegex } from '../prometheus/names.js';

/** The dashboard uid; the alert annotations link to `/d/mcp-tool-failures`. */
export const DASHBOARD_UID = 'mcp-tool-failures';

/** Data source uids, provisioned in `provisioning/datasources/datasources.yml`. */
export const DATASOURCE = Object.freeze({
  prometheus: { type: 'prometheus', uid: 'prometheus' },
  jaeger: { type: 'jaeger', uid: 'jaeger' },
  loki: { type: 'loki', uid: 'loki' },
} satisfies Record<string, DataSourceRef>);

/** A Prometheus query as the Grafana Prometheus data source stores it. */
type PromQuery = DataQuery & {
  datasource: DataSourceRef;
  editorMode: 'code';
  expr: string;
  legendFormat?: string;
  range?: boolean;
  instant?: boolean;
  format?: 'time_series' | 'table';
  exemplar?: boolean;
};

/** A Loki query. */
type LokiQuery = DataQuery & { datasource: DataSourceRef; editorMode: 'code'; expr: string };

/** A field data link (`fieldConfig.defaults.links`), typed `unknown[]` by the schema. */
type DataLink = { title: string; url: string; targetBlank: boolean };

// --- PromQL building blocks ---------------------------------------------------------------

const RATE = '$__rate_interval';
const SERVICE = `job=~"$job"`;
const TOOL = `${LABEL.tool}=~"$tool"`;
const FILTER = `${SERVICE}, ${TOOL}`;
const TOOLS_CALL = `${LABEL.method}="tools/call"`;

function sumRate(by: readonly string[], metric: string, matchers: string, range = RATE): string {
  return `sum by (${by.join(', ')}) (rate(${metric}{${matchers}}[${range}]))`;
}

function histogramRate(
  otelName: string,
  suffix: 'bucket' | 'count',
  by: readonly string[],
  range = RATE,
): string {
  const name = histogramNameRegex(otelName, suffix);
  return `sum by (${by.join(', ')}) (rate({__name__=~"${name}", ${TOOLS_CALL}, ${FILTER}}[${range}]))`;
}

function quantile(q: number, otelName: string, by: readonly string[] = []): string {
  return `histogram_quantile(${q}, ${histogramRate(otelName, 'bucket', ['le', ...by])})`;
}

const serverFailureRatioByTool =
  `${sumRate(['job', LABEL.tool], METRIC.serverFailures, FILTER)}\n/\n` +
  histogramRate(HISTOGRAM.server, 'count', ['job', LABEL.tool]);

// --- Links to failing traces ----------------------------------------------------------------

/** `${__field.labels.x}` for a series label, percent-encoded by Grafana. */
function fieldLabel(label: string): string {
  return `\${__field.labels.${label}:percentencode}`;
}

/**
 * Links to the Jaeger search for the spans behind a series: the Jaeger UI (tags as JSON in the
 * URL) and Grafana Explore on the Jaeger data source (tags as logfmt). `service` comes from the
 * series' `job` label, which is the service name when metrics arrive through the collector.
 */
function failingTraceLinks(
  tags: ReadonlyArray<readonly [attribute: string, label: string]>,
): DataLink[] {
  const jsonTags =
    encodeURIComponent('{') +
    tags
      .map(
        ([attribute, label]) =>
          `${encodeURIComponent(`"${attribute}":"`)}${fieldLabel(label)}${encodeURIComponent('"')}`,
      )
      .join(encodeURIComponent(','));
  const jaegerUrl =
    `\${jaeger_url}/search?service=${fieldLabel('job')}` +
    `&tags=${jsonTags}${encodeURIComponent('}')}` +
    '&start=${__from}000&end=${__to}000&limit=20';

  // Explore's state is JSON in the URL; placeholders are swapped in after encoding.
  const logfmt = tags.map(([attribute], i) => `${attribute}=@TAG${i}@`).join(' ');
  const panes = {
    a: {
      datasource: DATASOURCE.jaeger.uid,
      queries: [
        {
          refId: 'A',
          datasource: DATASOURCE.jaeger,
          queryType: 'search',
          service: '@SERVICE@',
          tags: logfmt,
          limit: 20,
        },
      ],
      range: { from: '@FROM@', to: '@TO@' },
    },
  };
  let explore = `/explore?schemaVersion=1&orgId=1&panes=${encodeURIComponent(JSON.stringify(panes))}`;
  explore = explore
    .replace('%40SERVICE%40', fieldLabel('job'))
    .replace('%40FROM%40', '${__from}')
    .replace('%40TO%40', '${__to}');
  tags.forEach(([, label], i) => {
    explore = explore.replace(`%40TAG${i}%40`, fieldLabel(label));
  });

  return [
    {
      title: 'Failing traces in Jaeger (${__field.labels.job})',
      url: jaegerUrl,
      targetBlank: true,
    },
    {
      title: 'Failing traces in Explore (${__field.labels.job})',
      url: explore,
      targetBlank: false,
    },
  ];
}

const CLASS_TAG = [ATTR_MCP_TOOL_FAILURE_CLASS, LABEL.failureClass] as const;
const CODE_TAG = [ATTR_MCP_TOOL_FAILURE_CODE, LABEL.failureCode] as const;
const TOOL_TAG = [ATTR_GEN_AI_TOOL_NAME, LABEL.tool] as const;

// --- Panels ---------------------------------------------------------------------------------

let nextId = 1;

/** A Prometheus query; `panel` assigns the refIds A, B, ... */
function prom(expr: string, legendFormat: string, extra: Partial<PromQuery> = {}): PromQuery {
  return {
    refId: 'A',
    datasource: DATASOURCE.prometheus,
    editorMode: 'code',
    expr,
    legendFormat,
    range: true,
    ...extra,
  };
}
interface PanelInit {
  title: string;
  description: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets: Array<PromQuery | LokiQuery>;
}

function panel(type: string, init: PanelInit, rest: Omit<Panel, 'type'> = {}): Panel {
  const targets = init.targets.map((target, i) => ({
    ...target,
    refId: String.fromCharCode(65 + i),
  }));
  return {
    id: nextId++,
    type,
    title: init.title,
    description: init.description,
    gridPos: init.gridPos,
    datasource: init.targets[0]?.datasource ?? DATASOURCE.prometheus,
    targets,
    ...rest,
  };
}

interface TimeseriesInit extends PanelInit {
  unit: string;
  stack?: boolean;
  links?: DataLink[];
  thresholdLine?: number;
}

function timeseries(init: TimeseriesInit): Panel {
  return panel('timeseries', init, {
    fieldConfig: {
      defaults: {
        unit: init.unit,
        min: 0,
        links: init.links ?? [],
        custom: {
          drawStyle: 'line',
          lineWidth: 1,
          fillOpacity: init.stack === true ? 30 : 10,
          showPoints: 'never',
          stacking: { mode: init.stack === true ? 'normal' : 'none', group: 'A' },
          thresholdsStyle: { mode: init.thresholdLine === undefined ? 'off' : 'dashed' },
        },
        thresholds: {
          mode: ThresholdsMode.Absolute,
          steps: [
            { color: 'green', value: null },
            ...(init.thresholdLine === undefined
              ? []
              : [{ color: 'red', value: init.thresholdLine }]),
          ],
        },
      },
      overrides: [],
    },
    options: {
      legend: {
        showLegend: true,
        displayMode: 'table',
        placement: 'right',
        calcs: ['mean', 'max'],
      },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
  });
}

function stat(init: PanelInit & { unit: string; red: number }): Panel {
  return panel('stat', init, {
    fieldConfig: {
      defaults: {
        unit: init.unit,
        decimals: 2,
        thresholds: {
          mode: ThresholdsMode.Absolute,
          steps: [
            { color: 'green', value: null },
            { color: 'red', value: init.red },
          ],
        },
      },
      overrides: [],
    },
    options: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: 'background',
      graphMode: 'area',
      textMode: 'value',
    },
  });
}

function row(title: string, y: number): RowPanel {
  return {
    type: 'row',
    id: nextId++,
    title,
    collapsed: false,
    gridPos: { x: 0, y, w: 24, h: 1 },
    panels: [],
  };
}

// --- Layout ---------------------------------------------------------------------------------

const overview: Array<Panel | RowPanel> = [
  row('Overview', 0),
  stat({
    title: 'Server tool failures',
    description: 'Tool failures per second reported by MCP servers (mcp.server.tool.failures).',
    gridPos: { x: 0, y: 1, w: 5, h: 5 },
    unit: 'reqps',
    red: 0.1,
    targets: [prom(`sum(rate(${METRIC.serverFailures}{${FILTER}}[${RATE}]))`, 'failures/s')],
  }),
  stat({
    title: 'Server failure ratio',
    description: 'Share of tools/call requests that ended in a tool failure, all selected tools.',
    gridPos: { x: 5, y: 1, w: 5, h: 5 },
    unit: 'percentunit',
    red: 0.1,
    targets: [
      prom(
        `sum(rate(${METRIC.serverFailures}{${FILTER}}[${RATE}]))\n/\n` +
          `sum(rate({__name__=~"${histogramNameRegex(HISTOGRAM.server, 'count')}", ${TOOLS_CALL}, ${FILTER}}[${RATE}]))`,
        'failure ratio',
      ),
    ],
  }),
  stat({
    title: 'Retries ending in exhaustion',
    description:
      'Retries per second of logical calls that still failed after all retries or the time budget ' +
      '(mcp.tool.call.retries with outcome retries_exhausted or budget_exhausted).',
    gridPos: { x: 10, y: 1, w: 5, h: 5 },
    unit: 'reqps',
    red: 0.01,
    targets: [
      prom(
        `sum(rate(${METRIC.retries}{${FILTER}, ${LABEL.outcome}=~"retries_exhausted|budget_exhausted"}[${RATE}]))`,
        'retries/s',
      ),
    ],
  }),
  {
    id: nextId++,
    type: 'alertlist',
    title: 'MCP alerts (Prometheus rules)',
    description:
      'Firing and pending alerts of observability/prometheus/rules/mcp-tool-failures.yml, read ' +
      'from the Prometheus data source (manageAlerts).',
    gridPos: { x: 15, y: 1, w: 9, h: 5 },
    options: {
      viewMode: 'list',
      groupMode: 'default',
      groupBy: [],
      maxItems: 20,
      sortOrder: 1,
      dashboardAlerts: false,
      alertName: 'McpTool',
      alertInstanceLabelFilter: '',
      datasource: 'Prometheus',
      showInstances: true,
      // The classic alert list filters data source-managed rules by data source *name*.
      showInactiveAlerts: false,
      stateFilter: {
        firing: true,
        pending: true,
        recovering: true,
        noData: false,
        normal: false,
        error: true,
      },
    },
  },
];

const failures: Array<Panel | RowPanel> = [
  row('Failures', 6),
  timeseries({
    title: 'Failure rate by class',
    description:
      'Server tool failures per second by class. Click a series for its failing traces in Jaeger ' +
      '(tag search on mcp.tool.failure.class).',
    gridPos: { x: 0, y: 7, w: 12, h: 8 },
    unit: 'reqps',
    stack: true,
    links: failingTraceLinks([CLASS_TAG]),
    targets: [
      prom(
        sumRate(['job', LABEL.failureClass], METRIC.serverFailures, FILTER),
        `{{${LABEL.failureClass}}} · {{job}}`,
      ),
    ],
  }),
  timeseries({
    title: 'Failure rate by code',
    description:
      'Server tool failures per second by class and code. Codes outside the baseline and ' +
      'package vocabularies are counted as _OTHER.',
    gridPos: { x: 12, y: 7, w: 12, h: 8 },
    unit: 'reqps',
    stack: true,
    links: failingTraceLinks([CLASS_TAG, CODE_TAG]),
    targets: [
      prom(
        sumRate(['job', LABEL.failureClass, LABEL.failureCode], METRIC.serverFailures, FILTER),
        `{{${LABEL.failureCode}}} ({{${LABEL.failureClass}}}) · {{job}}`,
      ),
    ],
  }),
  timeseries({
    title: 'Failure rate by tool',
    description: 'Server tool failures per second by tool and class.',
    gridPos: { x: 0, y: 15, w: 12, h: 8 },
    unit: 'reqps',
    stack: true,
    links: failingTraceLinks([TOOL_TAG, CLASS_TAG]),
    targets: [
      prom(
        sumRate(['job', LABEL.tool, LABEL.failureClass], METRIC.serverFailures, FILTER),
        `{{${LABEL.tool}}} · {{${LABEL.failureClass}}} · {{job}}`,
      ),
    ],
  }),
  timeseries({
    title: 'Failure ratio per tool',
    description:
      'Failed tools/call requests divided by all tools/call requests, per tool (server side). ' +
      'The dashed line is the reliability alert threshold (10%, reliability failures only).',
    gridPos: { x: 12, y: 15, w: 12, h: 8 },
    unit: 'percentunit',
    thresholdLine: 0.1,
    links: failingTraceLinks([TOOL_TAG]),
    targets: [prom(serverFailureRatioByTool, `{{${LABEL.tool}}} · {{job}}`)],
  }),
  timeseries({
    title: 'Client-observed failures by class and code',
    description:
      'Tool failures per second as MCP clients saw them (mcp.client.tool.failures), including ' +
      'failures a proxy or the transport added (error.type is the JSON-RPC code or tool_error).',
    gridPos: { x: 0, y: 23, w: 24, h: 8 },
    unit: 'reqps',
    links: failingTraceLinks([TOOL_TAG, CLASS_TAG]),
    targets: [
      prom(
        sumRate(
          ['job', LABEL.tool, LABEL.failureClass, LABEL.failureCode, LABEL.errorType],
          METRIC.clientFailures,
          FILTER,
        ),
        `{{${LABEL.tool}}}: {{${LABEL.failureCode}}} ({{${LABEL.failureClass}}}, {{${LABEL.errorType}}}) · {{job}}`,
      ),
    ],
  }),
];

const retries: Array<Panel | RowPanel> = [
  row('Retries', 31),
  timeseries({
    title: 'Retries by final outcome',
    description:
      `Retries per second, by how the logical call ended (${TOOL_CALL_OUTCOMES.join(', ')}). ` +
      'Retries ending in success are retries that helped.',
    gridPos: { x: 0, y: 32, w: 12, h: 8 },
    unit: 'reqps',
    stack: true,
    targets: [prom(sumRate([LABEL.outcome], METRIC.retries, FILTER), `{{${LABEL.outcome}}}`)],
  }),
  timeseries({
    title: 'Retries by failure class and code',
    description:
      'Retries per second by the failure the logical call ended with, per tool (the retries of calls that ended in success carry no failure and are left out).',
    gridPos: { x: 12, y: 32, w: 12, h: 8 },
    unit: 'reqps',
    links: failingTraceLinks([TOOL_TAG, CLASS_TAG]),
    targets: [
      prom(
        sumRate(
          ['job', LABEL.tool, LABEL.failureClass, LABEL.failureCode],
          METRIC.retries,
          `${FILTER}, ${LABEL.failureClass}!=""`,
        ),
        `{{${LABEL.tool}}}: {{${LABEL.failureCode}}} ({{${LABEL.failureClass}}})`,
      ),
    ],
  }),
  panel(
    'table',
    {
      title: 'Retries per tool and outcome (time range)',
      description:
        'Total retries in the selected time range, per client service, tool and final outcome.',
      gridPos: { x: 0, y: 40, w: 24, h: 7 },
      targets: [
        prom(
          `sum by (job, ${LABEL.tool}, ${LABEL.outcome}) (increase(${METRIC.retries}{${FILTER}}[$__range]))`,
          '',
          { range: false, instant: true, format: 'table' },
        ),
      ],
    },
    {
      fieldConfig: { defaults: { unit: 'short', decimals: 0 }, overrides: [] },
      options: { showHeader: true, sortBy: [{ displayName: 'Value', desc: true }] },
      transformations: [
        {
          id: 'organize',
          options: { excludeByName: { Time: true }, renameByName: { Value: 'retries' } },
        },
      ],
    },
  ),
];

const percentiles = [0.5, 0.95, 0.99] as const;

const latency: Array<Panel | RowPanel> = [
  row('Latency (tools/call)', 47),
  timeseries({
    title: 'Client latency percentiles',
    description:
      'p50 / p95 / p99 of mcp.client.operation.duration for tools/call (one attempt each). ' +
      'Works on both metric names (_seconds through the collector, none on a direct scrape).',
    gridPos: { x: 0, y: 48, w: 12, h: 8 },
    unit: 's',
    targets: percentiles.map((q) => prom(quantile(q, HISTOGRAM.client), `p${q * 100}`)),
  }),
  timeseries({
    title: 'Server latency percentiles',
    description: 'p50 / p95 / p99 of mcp.server.operation.duration for tools/call.',
    gridPos: { x: 12, y: 48, w: 12, h: 8 },
    unit: 's',
    targets: percentiles.map((q) => prom(quantile(q, HISTOGRAM.server), `p${q * 100}`)),
  }),
  timeseries({
    title: 'Server p95 latency by tool',
    description: 'p95 of mcp.server.operation.duration per tool.',
    gridPos: { x: 0, y: 56, w: 12, h: 8 },
    unit: 's',
    targets: [prom(quantile(0.95, HISTOGRAM.server, [LABEL.tool]), `{{${LABEL.tool}}}`)],
  }),
  timeseries({
    title: 'Server p95 latency by failure class',
    description:
      'p95 of mcp.server.operation.duration by failure class; "none" is calls that succeeded.',
    gridPos: { x: 12, y: 56, w: 12, h: 8 },
    unit: 's',
    targets: [
      prom(
        `label_replace(${quantile(0.95, HISTOGRAM.server, [LABEL.failureClass])}, ` +
          `"${LABEL.failureClass}", "none", "${LABEL.failureClass}", "")`,
        `{{${LABEL.failureClass}}}`,
      ),
    ],
  }),
];

const SPAN_FAILURES = `${LABEL.tool}=~"$tool", ${LABEL.failureClass}!="none"`;

const traces: Array<Panel | RowPanel> = [
  row('Failing traces and logs', 64),
  timeseries({
    title: 'Failing tool spans, p95 with exemplars (span metrics)',
    description:
      'From the collector spanmetrics connector: p95 duration of spans that carry a failure ' +
      'class. Each exemplar (diamond) is one sampled failing span; click it to open the trace.',
    gridPos: { x: 0, y: 65, w: 12, h: 9 },
    unit: 'ms',
    targets: [
      prom(
        'histogram_quantile(0.95, sum by (le, service_name, ' +
          `${LABEL.tool}, ${LABEL.failureClass}) (rate(traces_span_metrics_duration_milliseconds_bucket{${SPAN_FAILURES}}[${RATE}])))`,
        `{{service_name}} {{${LABEL.tool}}} · {{${LABEL.failureClass}}}`,
        { exemplar: true },
      ),
    ],
  }),
  panel(
    'text',
    {
      title: 'From a correlationId to the trace',
      description: 'How to go from a failure report to the server trace and logs.',
      gridPos: { x: 12, y: 65, w: 12, h: 9 },
      targets: [],
    },
    {
      options: {
        mode: 'markdown',
        content: [
          'The `correlationId` of a tool failure is the **trace ID** of the server span.',
          '',
          '- Jaeger: paste it into *Lookup by Trace ID*, or open `${jaeger_url}/trace/<correlationId>`.',
          '- Grafana: Explore → Jaeger → query type *TraceID*; from a span, *Logs for this span* opens Loki.',
          '- CLI: `npx mcp-failures lookup <correlationId> --jaeger-url ${jaeger_url}`.',
          '- Jaeger search by tags (logfmt): `mcp.tool.failure.class=reliability`, ' +
            '`mcp.tool.failure.code=timeout`, `gen_ai.tool.name=<tool>`.',
          '- Loki: `{service_name="<service>"} | trace_id="<correlationId>"`.',
          '',
          'Data links on the failure panels open the matching Jaeger search for a series.',
        ].join('\n'),
      },
    },
  ),
  panel(
    'logs',
    {
      title: 'Tool failure logs (Loki)',
      description:
        'One log record per server-side tool failure, with the failure fields as structured ' +
        'metadata. The TraceID field links to the trace in Jaeger.',
      gridPos: { x: 0, y: 74, w: 24, h: 10 },
      targets: [
        {
          refId: 'A',
          datasource: DATASOURCE.loki,
          editorMode: 'code',
          expr: `{service_name=~"$job"} | ${LABEL.failureClass}!="" | ${LABEL.tool}=~"$tool"`,
        },
      ],
    },
    {
      options: {
        showTime: true,
        wrapLogMessage: true,
        enableLogDetails: true,
        sortOrder: 'Descending',
        dedupStrategy: 'none',
      },
    },
  ),
];

/** A selector for every series the package emits, for the service and tool variables. */
function anyMcpSeries(extraMatchers = ''): string {
  const names = [
    METRIC.serverFailures,
    METRIC.clientFailures,
    METRIC.retries,
    histogramNameRegex(HISTOGRAM.server, 'count'),
    histogramNameRegex(HISTOGRAM.client, 'count'),
  ];
  return `{__name__=~"${names.join('|')}"${extraMatchers === '' ? '' : `, ${extraMatchers}`}}`;
}

/** The dashboard. */
export const dashboard: Dashboard = {
  uid: DASHBOARD_UID,
  title: 'MCP tool failures',
  description:
    'Tool failures of MCP servers and clients instrumented by @omcp/instrumentation-mcp: by ' +
    'class, code and tool, retries and their outcomes, latency, and links to failing traces.',
  tags: ['mcp', 'opentelemetry', 'tool-failures'],
  editable: true,
  graphTooltip: 1,
  schemaVersion: 41,
  version: 1,
  time: { from: 'now-1h', to: 'now' },
  refresh: '30s',
  timezone: 'browser',
  links: [
    {
      title: 'Jaeger',
      type: 'link',
      url: '${jaeger_url}/search',
      icon: 'external link',
      tooltip: 'Search traces in Jaeger',
      asDropdown: false,
      includeVars: false,
      keepTime: false,
      tags: [],
      targetBlank: true,
    },
    {
      title: 'Alert rules',
      type: 'link',
      url: '/alerting/list?search=McpTool',
      icon: 'bolt',
      tooltip: 'The Prometheus alert rules in Grafana Alerting',
      asDropdown: false,
      includeVars: false,
      keepTime: false,
      tags: [],
      targetBlank: false,
    },
  ],
  annotations: { list: [] },
  templating: {
    list: [
      {
        name: 'job',
        label: 'Service',
        description: 'service.name (the job label) of MCP servers and clients',
        type: 'query',
        datasource: DATASOURCE.prometheus,
        query: { qryType: 1, query: `label_values(${anyMcpSeries()}, job)`, refId: 'job' },
        refresh: VariableRefresh.onTimeRangeChanged,
        includeAll: true,
        multi: true,
        // Loki refuses selectors that match the empty string, so not `.*`.
        allValue: '.+',
        current: { text: 'All', value: '$__all' },
        sort: VariableSort.alphabeticalAsc,
      },
      {
        name: 'tool',
        label: 'Tool',
        type: 'query',
        datasource: DATASOURCE.prometheus,
        query: {
          qryType: 1,
          query: `label_values(${anyMcpSeries(SERVICE)}, ${LABEL.tool})`,
          refId: 'tool',
        },
        refresh: VariableRefresh.onTimeRangeChanged,
        includeAll: true,
        multi: true,
        allValue: '.*',
        current: { text: 'All', value: '$__all' },
        sort: VariableSort.alphabeticalAsc,
      },
      {
        name: 'jaeger_url',
        label: 'Jaeger UI',
        description: 'Base URL of the Jaeger UI, for links opened in the browser',
        type: 'constant',
        query: 'http://localhost:16686',
        hide: VariableHide.hideVariable,
      },
    ],
  },
  panels: [...overview, ...failures, ...retries, ...latency, ...traces],
};
