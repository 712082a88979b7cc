/**
 * Every panel and variable of the shipped Grafana dashboard on live data. Real traffic (an MCP
 * app under the zero-code entry: every failure class, retries that succeed and retries that run
 * out) is scraped by a real Prometheus under the app's service name, as `job` is on the
 * collector path. The collector's span metrics are fed the same names
 * (`traces_span_metrics_*`, with the connector's dimensions and bucket bounds) from the app's own
 * spans, received over OTLP. Each panel query and variable query is then evaluated through
 * Prometheus's HTTP API: it returns series, with every label its legend uses, and values in the
 * panel's unit. Panels with nothing to evaluate here are named with the reason.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseOtlpJson, type LookupSpan } from '../../packages/mcp-failures/src/lookup/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  freePort,
  repoPath,
  scrapedAppEnv,
  startProgram,
  stopProgram,
  tempDir,
  type Started,
} from './helpers.js';

const SERVICE = 'forecast-server';

interface Target {
  expr?: string;
  legendFormat?: string;
  datasource?: { type?: string };
}
interface PanelJson {
  type: string;
  title: string;
  targets?: Target[];
  panels?: PanelJson[];
  fieldConfig?: { defaults?: { unit?: string } };
}
interface Dashboard {
  panels: PanelJson[];
  templating: { list: Array<{ name: string; type: string; query?: unknown; allValue?: string }> };
}
interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

const dashboard = JSON.parse(
  readFileSync(repoPath('observability/grafana/dashboards/mcp-tool-failures.json'), 'utf8'),
) as Dashboard;

/** Panels with no query to evaluate here, and why. */
const NOT_FED: Record<string, string> = {
  'Tool failure logs (Loki)':
    'a LogQL query against Loki, which has no Debian package; the failure log records it shows are checked in test/observability/lookup-app-logs.test.ts',
  'From a correlationId to the trace': 'a text panel: no query',
};

/** The spanmetrics connector's default bucket bounds, in milliseconds. */
const SPAN_BUCKETS_MS = [
  2, 4, 6, 8, 10, 50, 100, 200, 400, 800, 1000, 1400, 2000, 5000, 10_000, 15_000,
];

interface SpanAgg {
  labels: string;
  counts: number[];
  sum: number;
  count: number;
}

/**
 * `traces_span_metrics_*` as the collector's connector exposes them (namespace
 * `traces.span.metrics`, unit ms, dimensions gen_ai.tool.name and mcp.tool.failure.class with
 * default `none`), made from the spans an app sent; each body is read once.
 */
class SpanMetrics {
  private readonly aggs = new Map<string, SpanAgg>();
  private read = 0;

  constructor(private readonly bodies: readonly string[]) {}

  text(): string {
    for (; this.read < this.bodies.length; this.read++)
      for (const span of parseOtlpJson(this.bodies[this.read]!)) this.add(span);
    const name = 'traces_span_metrics_duration_milliseconds';
    const lines = [`# TYPE ${name} histogram`];
    for (const a of this.aggs.values()) {
      SPAN_BUCKETS_MS.forEach((le, i) =>
        lines.push(`${name}_bucket{${a.labels},le="${le}"} ${a.counts[i]}`),
      );
      lines.push(`${name}_bucket{${a.labels},le="+Inf"} ${a.count}`);
      lines.push(`${name}_sum{${a.labels}} ${a.sum}`, `${name}_count{${a.labels}} ${a.count}`);
    }
    lines.push('# TYPE traces_span_metrics_calls_total counter');
    for (const a of this.aggs.values())
      lines.push(`traces_span_metrics_calls_total{${a.labels}} ${a.count}`);
    return `${lines.join('\n')}\n`;
  }

  private add(span: LookupSpan): void {
    const tool = span.attributes['gen_ai.tool.name'];
    const cls = span.attributes['mcp.tool.failure.class'];
    const labels = [
      `service_name="${span.service}"`,
      `span_name="${span.name}"`,
      `span_kind="SPAN_KIND_${span.kind}"`,
      `status_code="STATUS_CODE_${span.status.code}"`,
      ...(typeof tool === 'string' ? [`gen_ai_tool_name="${tool}"`] : []),
      `mcp_tool_failure_class="${typeof cls === 'string' ? cls : 'none'}"`,
      `job="${span.service}"`,
    ].join(',');
    const ms = Number(span.endTimeUnixNano - span.startTimeUnixNano) / 1e6;
    let agg = this.aggs.get(labels);
    if (agg === undefined) {
      agg = { labels, counts: SPAN_BUCKETS_MS.map(() => 0), sum: 0, count: 0 };
      this.aggs.set(labels, agg);
    }
    for (let i = 0; i < SPAN_BUCKETS_MS.length; i++)
      if (ms <= SPAN_BUCKETS_MS[i]!) agg.counts[i]! += 1;
    agg.sum += ms;
    agg.count += 1;
  }
}

const started: Started[] = [];
let receiver: OtlpReceiver;
let spanMetrics: Server;
let base = '';

async function query<T>(path: string): Promise<T> {
  const response = await fetch(`${base}${path}`);
  const body = (await response.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${path}: ${body.error ?? body.status}`);
  return body.data;
}

/** An instant query's series. */
async function instant(expr: string): Promise<Series[]> {
  return (await query<{ result: Series[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`))
    .result;
}

/** A panel's PromQL with the dashboard's variables and Grafana's intervals filled in. */
function fill(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '20s')
    .replaceAll('$__range', '1m')
    .replaceAll('"$job"', `"${SERVICE}"`)
    .replaceAll('"$tool"', '".*"');
}

function allPanels(panels: readonly PanelJson[]): PanelJson[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]).filter((p) => p.type !== 'row');
}

beforeAll(async () => {
  const dir = tempDir('dashboard-live');
  receiver = await startOtlpReceiver();
  const metrics = new SpanMetrics(receiver.traceBodies);
  spanMetrics = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics.text());
  });
  await new Promise<void>((resolve) => spanMetrics.listen(0, '127.0.0.1', resolve));
  const spanPort = (spanMetrics.address() as { port: number }).port;

  const metricsPort = await freePort();
  started.push(
    await startProgram(
      process.execPath,
      [
        '--import',
        '@omcp/instrumentation-mcp/register',
        'test/fixtures/apps/dashboard-load-app.mjs',
      ],
      {
        ...process.env,
        ...scrapedAppEnv(SERVICE, metricsPort, receiver.url, 'none'),
      },
    ),
  );
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      // The shipped rules, unchanged, for the alert list panel.
      rule_files: [repoPath('observability/prometheus/rules/mcp-tool-failures.yml')],
      scrape_configs: [
        { job_name: SERVICE, static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }] },
        {
          job_name: 'otel-collector',
          honor_labels: true,
          scrape_interval: '2s',
          scrape_timeout: '2s',
          static_configs: [{ targets: [`127.0.0.1:${spanPort}`] }],
        },
      ],
    }),
  );
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  started.push(
    await startProgram('prometheus', [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ]),
  );
  // 25 s of scrapes of the app and 12 of the span metrics: each 20 s rate window holds several.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await instant(
      'count_over_time(up{job="forecast-server"}[40s]) >= 25 and on () count_over_time(up{job="otel-collector"}[40s]) >= 12',
    ).catch(() => []);
    if (ready.length > 0) break;
    if (Date.now() > deadline) {
      const seen = await query<Series[]>(
        `/api/v1/query?query=${encodeURIComponent('count by (job, __name__) ({__name__=~"mcp_.+|traces_.+"})')}`,
      ).catch((e: unknown) => String(e));
      const targets = await query<unknown>('/api/v1/targets').catch((e: unknown) => String(e));
      throw new Error(
        `no data: ${JSON.stringify(seen)} ${JSON.stringify(targets).slice(0, 1500)}\n${started[0]?.output()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}, 120_000);

afterAll(async () => {
  for (const program of started.reverse()) await stopProgram(program);
  await new Promise<void>((resolve) =>
    spanMetrics ? spanMetrics.close(() => resolve()) : resolve(),
  );
  await receiver?.close();
});

/** The range each unit allows; every panel's series must fall in it, and one above zero. */
function inUnit(unit: string | undefined, value: number): boolean {
  switch (unit) {
    case 'percentunit':
      return value >= 0 && value <= 1;
    case 's':
      return value > 0 && value < 10;
    case 'ms':
      return value > 0 && value < 10_000;
    case 'reqps':
      return value >= 0 && value < 1_000;
    default:
      return value >= 0;
  }
}

describe('the shipped dashboard on live data', () => {
  const panels = allPanels(dashboard.panels);

  it('names every panel it does not evaluate, and evaluates all the others', () => {
    for (const panel of panels) {
      const evaluated = (panel.targets ?? []).some((t) => t.datasource?.type === 'prometheus');
      if (!evaluated && panel.type !== 'alertlist')
        expect(
          NOT_FED[panel.title],
          `panel ${panel.title} is neither evaluated nor named`,
        ).toBeDefined();
    }
  });

  it.each(
    panels
      .flatMap((p) =>
        (p.targets ?? [])
          .filter((t) => t.datasource?.type === 'prometheus' && t.expr !== undefined)
          .map((t) => [`${p.title}: ${t.legendFormat ?? ''}`, p, t] as const),
      )
      .map(([name, p, t]) => [name, p, t]),
  )('%s returns series with its legend labels, in its unit', async (_name, panel, target) => {
    const p = panel as PanelJson;
    const t = target as Target;
    const series = await instant(fill(t.expr!));
    expect(series.length, fill(t.expr!)).toBeGreaterThan(0);
    const legendLabels = [...(t.legendFormat ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map(
      (m) => m[1]!,
    );
    const unit = p.fieldConfig?.defaults?.unit;
    const values = series.map((s) => Number(s.value[1])).filter((v) => !Number.isNaN(v));
    expect(values.length, 'numbers, not NaN').toBeGreaterThan(0);
    for (const s of series) {
      for (const label of legendLabels)
        expect(s.metric, `legend {{${label}}}`).toHaveProperty(label);
      const v = Number(s.value[1]);
      if (!Number.isNaN(v)) expect(inUnit(unit, v), `${v} in ${unit}`).toBe(true);
    }
    expect(values.some((v) => v > 0)).toBe(true);
  });

  it('the alert list panel shows the shipped rules, loaded by this Prometheus', async () => {
    const data = await query<{ groups: Array<{ rules: Array<{ name: string; health: string }> }> }>(
      '/api/v1/rules?type=alert',
    );
    const rules = data.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name).sort()).toEqual([
      'McpToolCapabilityFailuresRising',
      'McpToolGovernanceFailureSpike',
      'McpToolReliabilityFailureRatioHigh',
      'McpToolRetriesExhausted',
    ]);
    for (const r of rules) expect(r.health, r.name).toBe('ok');
  });

  it.each(dashboard.templating.list.filter((v) => v.type === 'query').map((v) => [v.name, v]))(
    'variable %s lists the live values',
    async (name, variable) => {
      const text = (variable as { query: { query: string } }).query.query;
      const m = /^label_values\((.*),\s*(\w+)\)$/s.exec(text);
      expect(m, text).not.toBeNull();
      const selector = fill(m![1]!).replaceAll('"$job"', `"${SERVICE}"`);
      const series = await query<Array<Record<string, string>>>(
        `/api/v1/series?match[]=${encodeURIComponent(selector)}`,
      );
      const values = [
        ...new Set(series.map((s) => s[m![2]!]).filter((v) => v !== undefined)),
      ].sort();
      if (name === 'job') expect(values).toEqual([SERVICE]);
      else expect(values).toEqual(['book', 'calendar', 'forecast', 'outage', 'search']);
    },
  );
});
