/**
 * `mcp-failures lookup` without a correlationId: a search by class, code, tool, service and time,
 * over an OTLP/JSON file or Jaeger (a stand-in answering from what a real exporter sent), and the
 * reading of a delivered Alertmanager notification. The live path (a real alert from real
 * traffic, then this search) is test/observability/alert-delivery.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALERT_LOOKBACK_MS,
  parseTimeOrDuration,
  queriesFromAlertNotification,
} from '../../packages/mcp-failures/src/lookup/index.js';
import { startFakeJaeger, type FakeJaeger } from './fixtures/fake-jaeger.js';
import {
  CUSTOM_CORRELATION_ID,
  TOOL,
  recordFailureTraces,
  type RecordedTraces,
} from './fixtures/failure-trace.js';
import { lookupCli as lookup, tempDir } from './helpers.js';

let recorded: RecordedTraces;
let jaeger: FakeJaeger;
let dir = '';
let file = '';

beforeAll(async () => {
  recorded = await recordFailureTraces();
  jaeger = await startFakeJaeger(recorded.bodies);
  dir = tempDir('lookup-search');
  file = join(dir, 'traces.jsonl');
  writeFileSync(file, `${recorded.bodies.join('\n')}\n`);
});

afterAll(async () => {
  await jaeger?.stop();
});

/** The listed rows (after the heading line). */
const rows = (out: string): string[] => out.trimEnd().split('\n').slice(1);

describe('lookup search over a file', () => {
  it('lists each failing call once, from its server span, newest first', async () => {
    const { code, out, err } = await lookup('lookup', '--class', 'reliability', '--file', file);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe('2 failure(s) where class=reliability');
    const listed = rows(out);
    expect(listed).toHaveLength(2);
    expect(listed.map((r) => r.split('  ')[4]).sort()).toEqual(
      [recorded.failingTraceId, CUSTOM_CORRELATION_ID].sort(),
    );
    for (const row of listed)
      expect(row).toMatch(
        new RegExp(`^\\S+Z {2}flights-server {2}${TOOL} {2}reliability/upstream_unavailable {2}`),
      );
    const times = listed.map((r) => Date.parse(r.split('  ')[0]!));
    expect(times[0]).toBeGreaterThanOrEqual(times[1]!);
  });

  it('every option given must hold; none found exits 1', async () => {
    const none = await lookup('lookup', '--class', 'governance', '--file', file);
    expect(none.code).toBe(1);
    expect(none.out).toBe('0 failure(s) where class=governance\n');
    const otherTool = await lookup('lookup', '--tool', 'book_hotel', '--file', file);
    expect(otherTool.code).toBe(1);
    const future = await lookup('lookup', '--since', '2999-01-01T00:00:00Z', '--file', file);
    expect(future.code).toBe(1);
    const past = await lookup('lookup', '--until', '2000-01-01', '--file', file);
    expect(past.code).toBe(1);
    const all = await lookup(
      'lookup',
      '--code',
      'upstream_unavailable',
      '--service',
      'flights-server',
      '--since',
      '1h',
      '--file',
      file,
    );
    expect(all.code).toBe(0);
    expect(rows(all.out)).toHaveLength(2);
  });

  it('prints JSON with --json', async () => {
    const { code, out } = await lookup(
      'lookup',
      '--class',
      'reliability',
      '--json',
      '--file',
      file,
    );
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as Array<{ query: unknown; failures: Array<{ tool: string }> }>;
    expect(parsed[0]?.query).toEqual({ class: 'reliability' });
    expect(parsed[0]?.failures.map((f) => f.tool)).toEqual([TOOL, TOOL]);
  });
});

describe('lookup search over Jaeger', () => {
  it('searches the service by the class and code tags, then reads each trace', async () => {
    const { code, out, err } = await lookup(
      'lookup',
      '--service',
      'flights-server',
      '--class',
      'reliability',
      '--code',
      'upstream_unavailable',
      '--jaeger-url',
      jaeger.url,
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const search = jaeger.requests.find((r) => r.startsWith('/api/traces?'));
    const params = new URL(`http://x${search}`).searchParams;
    expect(params.get('service')).toBe('flights-server');
    expect(JSON.parse(params.get('tags') ?? '')).toEqual({
      'mcp.tool.failure.class': 'reliability',
      'mcp.tool.failure.code': 'upstream_unavailable',
    });
    expect(params.get('limit')).toBe('20');
    expect(rows(out)).toHaveLength(2);
  });

  it('needs --service, in one line', async () => {
    const { code, err } = await lookup(
      'lookup',
      '--class',
      'reliability',
      '--jaeger-url',
      jaeger.url,
    );
    expect(code).toBe(2);
    expect(err).toBe(
      'mcp-failures: a search with --jaeger-url needs --service (Jaeger searches one service) (mcp-failures --help for usage)\n',
    );
  });
});

describe('lookup --alert', () => {
  const notification = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    version: '4',
    status: 'firing',
    receiver: 'mcp-oncall',
    alerts: [
      {
        status: 'firing',
        labels: { alertname: 'McpToolReliabilityFailureRatioHigh', ...labels },
        annotations: {},
        startsAt: new Date(Date.now() - 60_000).toISOString(),
        endsAt: '0001-01-01T00:00:00Z',
        ...extra,
      },
    ],
  });

  it("searches with the alert's labels, and the command line's options over them", async () => {
    const path = join(dir, 'alert.json');
    writeFileSync(
      path,
      JSON.stringify(
        notification({
          mcp_tool_failure_class: 'reliability',
          mcp_tool_failure_code: 'upstream_unavailable',
          gen_ai_tool_name: TOOL,
          service: 'flights-server',
          job: 'flights-server',
        }),
      ),
    );
    // The recorded calls are older than the alert's window: --since widens it.
    const windowed = await lookup('lookup', '--alert', path, '--file', file);
    expect(windowed.out.split('\n')[0]).toMatch(
      new RegExp(
        `^\\d+ failure\\(s\\) where class=reliability code=upstream_unavailable tool=${TOOL} service=flights-server since=`,
      ),
    );
    const wide = await lookup('lookup', '--alert', path, '--since', '7d', '--file', file);
    expect(wide.code).toBe(0);
    expect(rows(wide.out)).toHaveLength(2);
    const overridden = await lookup(
      'lookup',
      '--alert',
      path,
      '--since',
      '7d',
      '--code',
      'timeout',
      '--file',
      file,
    );
    expect(overridden.code).toBe(1);
  });

  it('reads the service from job, drops the metrics-only code _OTHER, and bounds a resolved alert', () => {
    const starts = Date.parse('2026-12-03T10:00:00Z');
    const [q] = queriesFromAlertNotification(
      notification(
        { job: 'calendar-server', mcp_tool_failure_code: '_OTHER' },
        {
          status: 'resolved',
          startsAt: '2026-12-03T10:00:00Z',
          endsAt: '2026-12-03T10:30:00Z',
        },
      ),
    );
    expect(q).toEqual({
      service: 'calendar-server',
      sinceMs: starts - ALERT_LOOKBACK_MS,
      untilMs: Date.parse('2026-12-03T10:30:00Z'),
    });
  });

  it.each([
    ['not JSON', 'not json', /^mcp-failures: cannot read the alert notification .+: not JSON\n$/],
    [
      'no alerts',
      '{"alerts":[]}',
      /^mcp-failures: .+: not an Alertmanager notification: no "alerts" list\n$/,
    ],
    ['an alert without labels', '{"alerts":[{}]}', /^mcp-failures: .+: alert 1 has no labels\n$/],
  ])('answers %s in one line, exit 2', async (_name, text, message) => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, text);
    const { code, err } = await lookup('lookup', '--alert', path, '--file', file);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });
});

describe('lookup search usage', () => {
  it.each([
    [['lookup', '--file', 'x'], /missing <correlationId> or a search/],
    [
      ['lookup', 'abc', '--class', 'reliability', '--file', 'x'],
      /a <correlationId> or search options, not both/,
    ],
    [
      ['lookup', '--class', 'fatal', '--file', 'x'],
      /--class must be capability, reliability or governance, got 'fatal'/,
    ],
    [
      ['lookup', '--since', 'yesterday', '--file', 'x'],
      /--since must be a duration .+ got 'yesterday'/,
    ],
    [['lookup', '--tool', ' ', '--file', 'x'], /--tool must not be empty/],
    [
      ['lookup', '--class', 'reliability', '--limit', '0', '--file', 'x'],
      /--limit must be an integer from 1 to 1000/,
    ],
  ])('%j is a usage error in one line', async (argv, message) => {
    const { code, err } = await lookup(...argv);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err.trimEnd().split('\n')).toHaveLength(1);
  });

  it('reads durations and times', () => {
    const now = Date.parse('2026-12-03T12:00:00Z');
    expect(parseTimeOrDuration('90s', now)).toBe(now - 90_000);
    expect(parseTimeOrDuration('15m', now)).toBe(now - 900_000);
    expect(parseTimeOrDuration('2h', now)).toBe(now - 7_200_000);
    expect(parseTimeOrDuration('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseTimeOrDuration('2026-12-03T11:00:00Z', now)).toBe(now - 3_600_000);
    expect(parseTimeOrDuration('1764756000000', now)).toBe(1764756000000);
    expect(parseTimeOrDuration('soon', now)).toBeUndefined();
    expect(parseTimeOrDuration('5w', now)).toBeUndefined();
  });
});
