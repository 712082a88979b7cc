/**
 * From the page to the failing calls, live: a real MCP app under the zero-code entry (metrics
 * scraped by a real Prometheus, traces and logs sent over OTLP/HTTP JSON to a local receiver)
 * makes a tool fail; Prometheus evaluates the shipped reliability rule (windows shortened) and
 * sends the alert to a real Alertmanager (Debian's `prometheus-alertmanager`) running the
 * shipped configuration with its receiver pointed at a webhook here. The delivered notification
 * is then fed to `mcp-failures lookup --alert` as a process, as the runbook says, and one of the
 * correlationIds it lists to `mcp-failures lookup <id>`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  freePort,
  repoPath,
  run,
  scrapedAppEnv,
  startProgram,
  stopProgram,
  tempDir,
  type Started,
} from './helpers.js';
import { binPath } from '../../scripts/workspace.mjs';

const ALERT = 'McpToolReliabilityFailureRatioHigh';
const SERVICE = 'forecast-server';

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
}

/** Alertmanager's webhook payload, as much as the test reads. */
interface Notification {
  status: string;
  alerts: Array<{
    status: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    startsAt: string;
  }>;
}

const started: Started[] = [];
let receiver: OtlpReceiver;
let webhook: Server;
const notifications: Notification[] = [];
let dir = '';
let prometheusOutput = (): string => '';
let alertmanagerOutput = (): string => '';

beforeAll(async () => {
  dir = tempDir('alert-delivery');
  receiver = await startOtlpReceiver();
  webhook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/alerts') notifications.push(JSON.parse(body) as Notification);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(webhook.address() as { port: number }).port}/alerts`;

  const metricsPort = await freePort();
  const app = await startProgram(
    process.execPath,
    ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/failing-load-app.mjs'],
    {
      ...process.env,
      ...scrapedAppEnv(SERVICE, metricsPort, receiver.url, 'otlp'),
      OTEL_BLRP_SCHEDULE_DELAY: '200',
    },
  );
  started.push(app);

  // The shipped Alertmanager configuration, its receiver pointed here and its waits shortened.
  const am = parse(
    readFileSync(repoPath('observability/alertmanager/alertmanager.yml'), 'utf8'),
  ) as {
    route: Record<string, unknown>;
    receivers: Array<{ webhook_configs: Array<{ url: string }> }>;
  };
  am.route.group_wait = '1s';
  am.route.group_interval = '1s';
  am.receivers[0]!.webhook_configs[0]!.url = webhookUrl;
  writeFileSync(join(dir, 'alertmanager.yml'), stringify(am));
  const amPort = await freePort();
  const alertmanager = await startProgram('prometheus-alertmanager', [
    `--config.file=${join(dir, 'alertmanager.yml')}`,
    `--storage.path=${join(dir, 'am-data')}`,
    `--web.listen-address=127.0.0.1:${amPort}`,
    // No cluster: it would listen on every interface.
    '--cluster.listen-address=',
  ]);
  started.push(alertmanager);
  alertmanagerOutput = alertmanager.output;

  // The shipped rule with 10 s windows and no `for`, so it fires within seconds.
  const rules = parse(
    readFileSync(repoPath('observability/prometheus/rules/mcp-tool-failures.yml'), 'utf8'),
  ) as { groups: Array<{ rules: Rule[] }> };
  const rule = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === ALERT)!;
  const fast = { ...rule, expr: rule.expr.replaceAll('[5m]', '[10s]'), for: '0s' };
  writeFileSync(join(dir, 'rules.yml'), stringify({ groups: [{ name: 'fast', rules: [fast] }] }));
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [join(dir, 'rules.yml')],
      alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
      // Named like the service, as `job` is on the collector path.
      scrape_configs: [
        { job_name: SERVICE, static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }] },
      ],
    }),
  );
  const promPort = await freePort();
  const prometheus = await startProgram('prometheus', [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'prom-data')}`,
    `--web.listen-address=127.0.0.1:${promPort}`,
  ]);
  started.push(prometheus);
  prometheusOutput = prometheus.output;
}, 60_000);

afterAll(async () => {
  for (const program of started.reverse()) await stopProgram(program);
  await new Promise<void>((resolve) => (webhook ? webhook.close(() => resolve()) : resolve()));
  await receiver?.close();
});

describe('alert delivery, and from the page to the failing calls', () => {
  it('the shipped Alertmanager configuration passes amtool check-config', async () => {
    const r = await run('amtool', [
      'check-config',
      repoPath('observability/alertmanager/alertmanager.yml'),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });

  it('delivers the class-rate alert with class, code, tool, service, summary, runbook and dashboard', async () => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !notifications.some((n) => firing(n) !== undefined))
      await new Promise((resolve) => setTimeout(resolve, 250));
    const alert = notifications.map(firing).find((a) => a !== undefined);
    expect(
      alert,
      `no notification\n${prometheusOutput().slice(-2000)}\n${alertmanagerOutput().slice(-2000)}`,
    ).toBeDefined();
    expect(alert!.labels).toMatchObject({
      alertname: ALERT,
      mcp_tool_failure_class: 'reliability',
      mcp_tool_failure_code: 'retryable_transient_error',
      gen_ai_tool_name: 'forecast',
      service: SERVICE,
      job: SERVICE,
    });
    expect(alert!.annotations.summary).toMatch(
      /^Tool forecast on forecast-server: \d+(\.\d+)?% of calls/,
    );
    expect(alert!.annotations.runbook).toBe(
      'docs/operations.md#mcptoolreliabilityfailureratiohigh',
    );
    expect(alert!.annotations.dashboard).toContain('/d/mcp-tool-failures/');
    expect(alert!.annotations.dashboard).toContain('var-tool=forecast');
  }, 70_000);

  it('mcp-failures lookup --alert lists the failing calls, and a correlationId leads to the chain and its logs', async () => {
    const notification = notifications.find((n) => firing(n) !== undefined);
    expect(notification).toBeDefined();
    const payload = join(dir, 'notification.json');
    writeFileSync(payload, JSON.stringify(notification));
    // Let the exporters send what the app made before the alert fired.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const otlp = join(dir, 'otlp.jsonl');
    writeFileSync(otlp, `${[...receiver.traceBodies, ...receiver.logBodies].join('\n')}\n`);

    const cli = binPath('mcp-failures');
    const search = await run(process.execPath, [cli, 'lookup', '--alert', payload, '--file', otlp]);
    expect(search.code, search.stderr).toBe(0);
    const [head, ...rows] = search.stdout.trimEnd().split('\n');
    expect(head).toMatch(
      /^\d+ failure\(s\) where class=reliability code=retryable_transient_error tool=forecast service=forecast-server since=\S+Z$/,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows)
      expect(row).toMatch(
        /^\S+Z {2}forecast-server {2}forecast {2}reliability\/retryable_transient_error {2}[0-9a-f]{32} {2}upstream reset the connection$/,
      );
    // The search is the alert's: the tool that never fails is not listed.
    expect(search.stdout).not.toContain('  search  ');

    // The oldest one: its log record has surely been exported by now (newest first).
    const correlationId = rows.at(-1)!.split('  ')[4]!;
    const chain = await run(process.execPath, [cli, 'lookup', correlationId, '--file', otlp]);
    expect(chain.code, chain.stderr).toBe(0);
    expect(chain.stdout).toContain(`trace ${correlationId}`);
    expect(chain.stdout).toContain('reliability/retryable_transient_error');
    expect(chain.stdout).toMatch(/logs \(\d+, in time order\):/);
    expect(chain.stdout).toMatch(/in tools\/call forecast:/);
  }, 30_000);
});

function firing(n: Notification): Notification['alerts'][number] | undefined {
  return n.alerts.find((a) => a.status === 'firing' && a.labels.alertname === ALERT);
}
