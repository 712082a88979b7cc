import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dashboard, DASHBOARD_UID } from '../../observability/grafana/dashboard.js';
import { renderDashboards } from '../../observability/grafana/render.js';
import { repoPath } from './helpers.js';

describe('dashboard "MCP tool failures"', () => {
  it('is committed exactly as npm run dashboards generates it', async () => {
    const rendered = await renderDashboards();
    expect(rendered.map((r) => r.path)).toEqual(['dashboards/mcp-tool-failures.json']);
    for (const { path, content } of rendered) {
      const committed = readFileSync(repoPath('observability/grafana', path), 'utf8');
      expect(committed, `${path} is stale: run npm run dashboards`).toBe(content);
    }
  });

  it('has the panels the issue asks for', () => {
    const titles = (dashboard.panels ?? []).map((p) => p.title);
    for (const title of [
      'Failure rate by class',
      'Failure rate by code',
      'Failure rate by tool',
      'Failure ratio per tool',
      'Retries by final outcome',
      'Client latency percentiles',
      'Server latency percentiles',
      'MCP alerts (Prometheus rules)',
      'Tool failure logs (Loki)',
    ]) {
      expect(titles).toContain(title);
    }
    expect(dashboard.uid).toBe(DASHBOARD_UID);
  });

  it('links failure panels to the failing traces in Jaeger, with tag search', () => {
    const linked = (dashboard.panels ?? []).filter((p) => p.title?.startsWith('Failure rate by'));
    expect(linked.length).toBe(3);
    for (const panel of linked) {
      const links = ('fieldConfig' in panel ? panel.fieldConfig?.defaults.links : []) as Array<{
        url: string;
      }>;
      const jaeger = links.find((l) => l.url.startsWith('${jaeger_url}/search?'));
      expect(jaeger?.url).toContain('service=${__field.labels.job:percentencode}');
      expect(decodeURIComponent(jaeger?.url ?? '')).toContain(
        '"mcp.tool.failure.class":"${__field.labels.mcp_tool_failure_class:percentencode}"',
      );
      expect(links.some((l) => l.url.startsWith('/explore?'))).toBe(true);
    }
  });

  it('shows exemplars on the span-metrics panel (exemplar to trace)', () => {
    const exemplarTargets = (dashboard.panels ?? [])
      .flatMap((p) => ('targets' in p ? (p.targets ?? []) : []))
      .filter((t) => t.exemplar === true);
    expect(exemplarTargets.length).toBeGreaterThan(0);
  });
});
