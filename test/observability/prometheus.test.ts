import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { dashboard } from '../../observability/grafana/dashboard.js';
import { LABEL, METRIC, promName } from '../../observability/prometheus/names.js';
import * as semconv from '../../src/semconv.js';
import { repoPath, run, tempDir } from './helpers.js';

const RULES = 'observability/prometheus/rules/mcp-tool-failures.yml';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = (parse(readFileSync(repoPath(RULES), 'utf8')) as { groups: Array<{ rules: Rule[] }> })
  .groups[0]?.rules as Rule[];

describe('promtool', () => {
  it('accepts the Prometheus configuration (and the rule file it loads)', async () => {
    const result = await run('promtool', [
      'check',
      'config',
      'observability/prometheus/prometheus.yml',
    ]);
    expect(result.stdout + result.stderr).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('accepts the alert rules', async () => {
    const result = await run('promtool', ['check', 'rules', RULES]);
    expect(result.stdout + result.stderr).toContain('SUCCESS: 4 rules found');
    expect(result.code).toBe(0);
  });

  it('passes the rule unit tests (each alert fires when it should, stays silent otherwise)', async () => {
    const result = await run('promtool', [
      'test',
      'rules',
      'observability/prometheus/rules/mcp-tool-failures.test.yml',
    ]);
    expect(result.stdout + result.stderr, result.stdout + result.stderr).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('has a unit test that fires and one that stays silent for every alert', () => {
    const tests = (
      parse(
        readFileSync(repoPath('observability/prometheus/rules/mcp-tool-failures.test.yml'), 'utf8'),
      ) as {
        tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
      }
    ).tests.flatMap((t) => t.alert_rule_test);
    for (const rule of rules) {
      const own = tests.filter((t) => t.alertname === rule.alert);
      expect(
        own.some((t) => t.exp_alerts.length > 0),
        `${rule.alert} fires`,
      ).toBe(true);
      expect(
        own.some((t) => t.exp_alerts.length === 0),
        `${rule.alert} silent`,
      ).toBe(true);
    }
  });
});

describe('alert rules', () => {
  it('cover reliability, governance, capability and exhausted retries', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'McpToolReliabilityFailureRatioHigh',
      'McpToolGovernanceFailureSpike',
      'McpToolCapabilityFailuresRising',
      'McpToolRetriesExhausted',
    ]);
  });

  it('say what it means, what to do, and link the dashboard', () => {
    for (const rule of rules) {
      expect(Object.keys(rule.annotations ?? {}).sort(), rule.alert).toEqual(
        ['action', 'dashboard', 'description', 'runbook', 'summary'].sort(),
      );
      expect(rule.annotations?.dashboard).toContain(`/d/${dashboard.uid}/`);
      expect(rule.annotations?.runbook).toMatch(/^docs\/operations\.md#/);
      const anchor = (rule.annotations?.runbook ?? '').split('#')[1] ?? '';
      expect(readFileSync(repoPath('docs/operations.md'), 'utf8').toLowerCase()).toContain(
        `## ${anchor}`,
      );
    }
  });

  it('use only metric and label names derived from src/semconv.ts', () => {
    const known = new Set<string>([
      ...Object.values(METRIC),
      ...Object.values(LABEL),
      ...(Object.values(semconv) as unknown[])
        .filter((v): v is string => typeof v === 'string')
        .map((v) => promName(v)),
    ]);
    for (const rule of rules) {
      for (const [name] of rule.expr.matchAll(/\bmcp_[a-z_]+|\bgen_ai_[a-z_]+/g)) {
        // Histogram series carry a suffix (and the optional _seconds of the collector path).
        const base = name.replace(/(_seconds)?_(count|bucket|sum)$/, '').replace(/_$/, '');
        expect(known.has(name) || known.has(base), `${rule.alert}: ${name}`).toBe(true);
      }
    }
  });
});

/** Grafana's variables replaced by values promtool accepts. */
function substituteVariables(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__range', '1h')
    .replaceAll('$__interval', '1m')
    .replaceAll('$job', '.+')
    .replaceAll('$tool', '.*');
}

/** Every PromQL expression of the dashboard: panel targets and variable queries. */
function dashboardExpressions(): string[] {
  const exprs: string[] = [];
  for (const panel of dashboard.panels ?? []) {
    if (!('targets' in panel)) continue;
    for (const target of panel.targets ?? []) {
      const ds = target.datasource as { type?: string } | undefined;
      if (ds?.type === 'prometheus' && typeof target.expr === 'string') exprs.push(target.expr);
    }
  }
  for (const variable of dashboard.templating?.list ?? []) {
    const query = variable.query;
    if (variable.type !== 'query' || typeof query !== 'object' || query === null) continue;
    const text = String((query as { query?: unknown }).query);
    const selector = /^label_values\((.*), [a-z_]+\)$/s.exec(text)?.[1];
    expect(selector, text).toBeDefined();
    exprs.push(`count(${selector})`);
  }
  return exprs;
}

describe('dashboard PromQL', () => {
  it('passes promtool check rules, every expression', async () => {
    const exprs = dashboardExpressions().map(substituteVariables);
    expect(exprs.length).toBeGreaterThan(15);
    for (const expr of exprs) expect(expr, expr).not.toContain('$');
    const file = join(tempDir('dashboard-promql'), 'dashboard-exprs.yml');
    writeFileSync(
      file,
      stringify({
        groups: [
          {
            name: 'dashboard',
            rules: exprs.map((expr, i) => ({ record: `dashboard:expr_${i + 1}`, expr })),
          },
        ],
      }),
    );
    const result = await run('promtool', ['check', 'rules', file]);
    expect(result.stdout + result.stderr).toContain(`SUCCESS: ${exprs.length} rules found`);
    expect(result.code).toBe(0);
  });

  it('the queries of docs/operations.md pass promtool check rules too', async () => {
    const doc = readFileSync(repoPath('docs/operations.md'), 'utf8');
    const blocks = [...doc.matchAll(/```promql\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(blocks.length).toBeGreaterThan(0);
    // One expression per line; a line that starts with a space or `/` continues the one above,
    // except right after a comment or a blank line.
    const exprs: string[] = [];
    let open = false;
    for (const line of blocks.join('\n').split('\n')) {
      if (line.trim() === '' || line.trimStart().startsWith('#')) {
        open = false;
        continue;
      }
      if (open && /^[\s/]/.test(line)) exprs[exprs.length - 1] += ` ${line.trim()}`;
      else exprs.push(line.trim());
      open = true;
    }
    expect(exprs.length).toBeGreaterThan(8);
    const file = join(tempDir('docs-promql'), 'docs-exprs.yml');
    writeFileSync(
      file,
      stringify({
        groups: [
          { name: 'docs', rules: exprs.map((expr, i) => ({ record: `docs:expr_${i + 1}`, expr })) },
        ],
      }),
    );
    const result = await run('promtool', ['check', 'rules', file]);
    expect(result.stdout + result.stderr, exprs.join('\n')).toContain(
      `SUCCESS: ${exprs.length} rules found`,
    );
    expect(result.code).toBe(0);
  });

  it('reads latency from both histogram names (direct scrape and collector)', () => {
    const latency = dashboardExpressions().filter(
      (e) => e.includes('histogram_quantile') && e.includes('operation_duration'),
    );
    expect(latency.length).toBeGreaterThan(0);
    for (const expr of latency) expect(expr).toContain('(?:_seconds)?_bucket');
  });
});
