/**
 * End to end without Docker: a real Prometheus (the Debian `prometheus` binary) on 127.0.0.1
 * scrapes a real MCP app instrumented by this package with zero code (`--import .../register`,
 * `OTEL_METRICS_EXPORTER=prometheus`) while its client makes a tool fail, and evaluates a fast
 * variant of the production reliability alert until it fires.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort, repoPath, tempDir } from './helpers.js';

const ALERT = 'McpToolReliabilityFailureRatioHigh';

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The production reliability rule with 10 s windows and no `for`, for a test that takes seconds. */
function fastReliabilityRule(): Rule {
  const file = parse(
    readFileSync(repoPath('observability/prometheus/rules/mcp-tool-failures.yml'), 'utf8'),
  ) as { groups: Array<{ rules: Rule[] }> };
  const rule = file.groups.flatMap((g) => g.rules).find((r) => r.alert === ALERT);
  if (rule === undefined) throw new Error(`${ALERT} not found`);
  expect(rule.expr).toContain('[5m]');
  return { ...rule, expr: rule.expr.replaceAll('[5m]', '[10s]'), for: '0s' };
}

interface AlertsResponse {
  data: { alerts: Array<{ labels: Record<string, string>; state: string }> };
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const response = await fetch(url);
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

interface App {
  target: string;
  stop(): Promise<void>;
}

/** Starts the instrumented MCP app with its Prometheus endpoint on 127.0.0.1. */
async function startInstrumentedApp(): Promise<App> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/failing-load-app.mjs'],
    {
      cwd: repoPath('.'),
      env: {
        ...process.env,
        OTEL_SERVICE_NAME: 'forecast-server',
        OTEL_METRICS_EXPORTER: 'prometheus',
        OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
        OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app did not start: ${log}`)), 15_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`app exited (${code}): ${log}`)));
  });
  return {
    target: `127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('reliability alert against a real Prometheus', () => {
  let app: App;
  let prometheus: ChildProcess | undefined;
  let base = '';
  let output = '';

  beforeAll(async () => {
    app = await startInstrumentedApp();
    const dir = tempDir('prometheus-live');
    writeFileSync(
      join(dir, 'rules.yml'),
      stringify({ groups: [{ name: 'mcp-tool-failures-fast', rules: [fastReliabilityRule()] }] }),
    );
    writeFileSync(
      join(dir, 'prometheus.yml'),
      stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [join(dir, 'rules.yml')],
        scrape_configs: [{ job_name: 'mcp-server', static_configs: [{ targets: [app.target] }] }],
      }),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const child = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus = child;
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.once('error', (error) =>
        reject(
          new Error(`cannot start prometheus (Debian package "prometheus"): ${error.message}`),
        ),
      );
      child.once('spawn', () => resolve());
    });
  });

  afterAll(async () => {
    const child = prometheus;
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(child.pid, 'SIGTERM');
      await exited;
    }
    await app?.stop();
  });

  it('scrapes the exporter and fires the reliability alert for the failing tool only', async () => {
    const deadline = Date.now() + 60_000;
    let firing: AlertsResponse['data']['alerts'] = [];
    while (Date.now() < deadline) {
      if (prometheus?.exitCode !== null) throw new Error(`prometheus exited:\n${output}`);
      const body = await getJson<AlertsResponse>(`${base}/api/v1/alerts`);
      firing = (body?.data.alerts ?? []).filter(
        (a) => a.labels.alertname === ALERT && a.state === 'firing',
      );
      if (firing.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(firing, output).toHaveLength(1);
    expect(firing[0]?.labels).toMatchObject({
      alertname: ALERT,
      job: 'mcp-server',
      gen_ai_tool_name: 'forecast',
      severity: 'warning',
    });
  });

  it('sees the direct-scrape names: counters with _total, histograms without _seconds', async () => {
    type Query = { data: { result: Array<{ metric: Record<string, string> }> } };
    const failures = await getJson<Query>(
      `${base}/api/v1/query?query=${encodeURIComponent('mcp_server_tool_failures_total')}`,
    );
    expect(failures?.data.result[0]?.metric).toMatchObject({
      gen_ai_tool_name: 'forecast',
      mcp_tool_failure_class: 'reliability',
      mcp_tool_failure_code: 'retryable_transient_error',
      error_type: 'tool_error',
    });
    const buckets = await getJson<Query>(
      `${base}/api/v1/query?query=${encodeURIComponent('count by (__name__) ({__name__=~"mcp_server_operation_duration.*"})')}`,
    );
    const names = (buckets?.data.result ?? []).map((r) => r.metric.__name__).sort();
    expect(names).toEqual([
      'mcp_server_operation_duration_bucket',
      'mcp_server_operation_duration_count',
      'mcp_server_operation_duration_sum',
    ]);
  });
});
