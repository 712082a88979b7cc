import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoPath, ROOT, run, tempDir } from './helpers.js';

interface ComposeService {
  image: string;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(repoPath('docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};

describe('docker-compose.yml', () => {
  it('passes the compose schema lint (dclint) without warnings', async () => {
    const result = await run(repoPath('node_modules/.bin/dclint'), [
      'docker-compose.yml',
      '--max-warnings',
      '0',
    ]);
    expect(result.stdout + result.stderr).not.toMatch(/error|warning/i);
    expect(result.code).toBe(0);
  });

  it('rejects an unknown key, so the lint really checks the schema', async () => {
    const dir = tempDir('dclint');
    const broken = readFileSync(repoPath('docker-compose.yml'), 'utf8').replace(
      '    image: grafana/grafana',
      '    imagee: oops\n    image: grafana/grafana',
    );
    writeFileSync(join(dir, 'docker-compose.yml'), broken);
    const result = await run(repoPath('node_modules/.bin/dclint'), [
      join(dir, 'docker-compose.yml'),
    ]);
    expect(result.code).not.toBe(0);
  });

  it('runs the six services on images pinned to exact versions', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'alertmanager',
      'grafana',
      'jaeger',
      'loki',
      'otel-collector',
      'prometheus',
    ]);
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.image, name).toMatch(/^[a-z0-9./-]+:v?\d+\.\d+\.\d+$/);
    }
  });

  it('binds every host port to 127.0.0.1 and has a health check for every service', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
      expect(service.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    // What the docs promise: OTLP/HTTP on 4318 and the four UIs.
    for (const port of ['4317', '4318', '3000', '9090', '16686', '3100']) {
      expect(published).toContain(`127.0.0.1:${port}:${port}`);
    }
  });

  it('mounts only files and folders that exist', () => {
    const mounts = Object.values(compose.services).flatMap((s) => s.volumes ?? []);
    expect(mounts.length).toBeGreaterThan(0);
    for (const mount of mounts) {
      const source = mount.split(':')[0] ?? '';
      expect(source.startsWith('./'), mount).toBe(true);
      expect(existsSync(join(ROOT, source)), mount).toBe(true);
    }
  });
});

interface Datasource {
  uid: string;
  type: string;
  jsonData?: {
    exemplarTraceIdDestinations?: Array<{ datasourceUid: string }>;
    derivedFields?: Array<{ datasourceUid: string }>;
    tracesToLogsV2?: { datasourceUid: string };
    tracesToMetrics?: { datasourceUid: string };
  };
}

const datasources = (
  parse(
    readFileSync(
      repoPath('observability/grafana/provisioning/datasources/datasources.yml'),
      'utf8',
    ),
  ) as { datasources: Datasource[] }
).datasources;

/** Every `datasource` reference of a dashboard JSON, wherever it is nested. */
function datasourceUids(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) datasourceUids(item, found);
  } else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'datasource' && typeof value === 'object' && value !== null && 'uid' in value) {
        found.add(String(value.uid));
      } else if (key === 'datasource' && typeof value === 'string') {
        found.add(value);
      } else {
        datasourceUids(value, found);
      }
    }
  }
  return found;
}

describe('Grafana provisioning', () => {
  const provisioned = new Set(datasources.map((d) => d.uid));

  it('provisions Prometheus, Jaeger and Loki', () => {
    expect(datasources.map((d) => [d.uid, d.type])).toEqual([
      ['prometheus', 'prometheus'],
      ['jaeger', 'jaeger'],
      ['loki', 'loki'],
    ]);
  });

  it('links data sources only to provisioned ones (exemplars, log to trace, trace to logs)', () => {
    const links = datasources.flatMap((d) => [
      ...(d.jsonData?.exemplarTraceIdDestinations ?? []).map((x) => x.datasourceUid),
      ...(d.jsonData?.derivedFields ?? []).map((x) => x.datasourceUid),
      ...(d.jsonData?.tracesToLogsV2 ? [d.jsonData.tracesToLogsV2.datasourceUid] : []),
      ...(d.jsonData?.tracesToMetrics ? [d.jsonData.tracesToMetrics.datasourceUid] : []),
    ]);
    expect(links.sort()).toEqual(['jaeger', 'jaeger', 'loki', 'prometheus']);
    for (const uid of links) expect(provisioned).toContain(uid);
  });

  it('uses in every dashboard only provisioned data source uids (alert list by name)', () => {
    const provider = parse(
      readFileSync(
        repoPath('observability/grafana/provisioning/dashboards/dashboards.yml'),
        'utf8',
      ),
    ) as { providers: Array<{ options: { path: string } }> };
    const grafana = compose.services.grafana;
    const mount = grafana?.volumes?.find((v) =>
      v.endsWith(`:${provider.providers[0]?.options.path}:ro`),
    );
    expect(mount, 'the dashboards folder is mounted where the provider reads').toBeDefined();
    const folder = join(ROOT, (mount ?? '').split(':')[0] ?? '');
    const file = join(folder, 'mcp-tool-failures.json');
    const dashboard = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const names = new Set(datasources.map((d) => (d as unknown as { name: string }).name));
    const used = datasourceUids(dashboard);
    expect(used.size).toBeGreaterThan(0);
    for (const uid of used) {
      expect(provisioned.has(uid) || names.has(uid), `datasource ${uid}`).toBe(true);
    }
    expect(dirname(file)).toBe(repoPath('observability/grafana/dashboards'));
  });
});
