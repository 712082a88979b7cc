import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_NAME } from '../../src/version.js';
import { TOOL_FAILURE_META_KEY } from '../../src/tool-failure/constants.js';
import { FIXTURES_DIR, ROOT, listFixtures, matrixCases, type MatrixCase } from './cases.js';
import {
  OtlpReceiver,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  type ReceivedSpan,
} from './otlp-receiver.js';

/**
 * The version matrix: every fixture SDK (test/fixtures/sdk-<version>/, installed by
 * scripts/install-fixtures.mjs) under CommonJS and ES modules, in the three ways of enabling
 * the instrumentation, with McpServer and the low-level Server. Each case is a child process
 * whose client calls a failing and a succeeding tool; spans reach the test over OTLP/HTTP JSON.
 */

const CHILD_TIMEOUT_MS = 30_000;
const CONCURRENCY = Math.max(
  1,
  Number(process.env.MATRIX_CONCURRENCY) || Math.min(2, availableParallelism()),
);
const ROOT_OTEL_API = join(ROOT, 'node_modules', '@opentelemetry', 'api');
const HEX32 = /^[0-9a-f]{32}$/;

/** What a fixture app prints as its last stdout line. */
interface AppReport {
  sdk: { name: string; version: string; dir: string } | undefined;
  patched: { client: boolean; server: boolean };
  otelApi: { loaded: string[]; fromFixture: string | undefined; registryVersion: string };
  results: {
    fail: { isError?: boolean; _meta?: Record<string, unknown> };
    ok: { isError?: boolean; _meta?: Record<string, unknown> };
    cancelled: string;
  };
}

let slots = CONCURRENCY;
const waiting: Array<() => void> = [];
async function limited<T>(task: () => Promise<T>): Promise<T> {
  if (slots === 0) await new Promise<void>((resolve) => waiting.push(resolve));
  else slots--;
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next !== undefined) next();
    else slots++;
  }
}

/** The node flags that enable the instrumentation in a mode, before the app's own code runs. */
function preloadFlags(c: MatrixCase): string[] {
  const esm = c.moduleSystem === 'esm';
  const flag = esm ? '--import' : '--require';
  const ext = esm ? 'mjs' : 'cjs';
  switch (c.mode) {
    case 'auto':
      return [flag, join(FIXTURES_DIR, 'matrix-shared', `auto.${ext}`)];
    case 'manual':
      return [flag, join(FIXTURES_DIR, 'matrix-shared', `manual.${ext}`)];
    case 'register':
      // The package's own `register` export, as `node --import @omcp/instrumentation-mcp/register`.
      return [flag, join(ROOT, 'register', `index.${ext}`)];
  }
}

function childEnv(c: MatrixCase, endpoint: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Nothing of the test runner's own loader or telemetry settings leaks into the app.
    if (k === 'NODE_OPTIONS' || k.startsWith('OTEL_') || k.startsWith('VITEST')) continue;
    env[k] = v;
  }
  return {
    ...env,
    MATRIX_MODE: c.mode,
    MATRIX_API: c.api === 'McpServer' ? 'mcpserver' : 'lowlevel',
    MATRIX_TRANSPORT: c.transport,
    OTEL_SERVICE_NAME: `matrix-${c.fixture.name}`,
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  };
}

function runApp(
  c: MatrixCase,
  endpoint: string,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const app = join(c.fixture.dir, c.moduleSystem === 'esm' ? 'app.mjs' : 'app.cjs');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...preloadFlags(c), app],
      {
        cwd: c.fixture.dir,
        env: childEnv(c, endpoint),
        timeout: CHILD_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : (error.code ?? (error.killed ? 'timeout' : 'error'));
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function findSpan(spans: ReceivedSpan[], name: string, kind: number): ReceivedSpan | undefined {
  return spans.find((s) => s.name === name && s.kind === kind);
}

function hasCallPair(spans: ReceivedSpan[], tool: string): boolean {
  const name = `tools/call ${tool}`;
  return (
    findSpan(spans, name, SPAN_KIND_CLIENT) !== undefined &&
    findSpan(spans, name, SPAN_KIND_SERVER) !== undefined
  );
}

const receiver = new OtlpReceiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

const fixtures = listFixtures();

describe('the version matrix', () => {
  it('has at least three SDK 1.x fixtures and one 2.x fixture', () => {
    expect(fixtures.filter((f) => f.line === 1).length).toBeGreaterThanOrEqual(3);
    expect(fixtures.filter((f) => f.line === 2).length).toBeGreaterThanOrEqual(1);
  });
});

describe.each(
  fixtures.map((f) => ({ fixture: f, title: `${f.name} (${f.packages.join(' + ')})` })),
)('$title', ({ fixture }) => {
  it.concurrent.each(matrixCases(fixture))(
    '$label',
    async (c) => {
      expect(
        existsSync(join(fixture.dir, 'node_modules')),
        `${fixture.name} is not installed: run node scripts/install-fixtures.mjs`,
      ).toBe(true);
      const run = `${fixture.name}-${c.label.replaceAll(' ', '-')}`;
      const child = await limited(() => runApp(c, receiver.endpoint(run)));
      const detail = `exit ${String(child.code)}\n--- stderr\n${child.stderr}\n--- stdout\n${child.stdout}`;
      expect(child.code, detail).toBe(0);
      const lines = child.stdout.trim().split('\n');
      const report = JSON.parse(lines[lines.length - 1] ?? '{}') as AppReport;

      // The app ran the fixture's own SDK, with the repository's single @opentelemetry/api.
      expect(report.sdk?.version, detail).toBe(fixture.version);
      expect(fixture.packages).toContain(report.sdk?.name);
      expect(report.sdk?.dir.startsWith(join(fixture.dir, 'node_modules')), detail).toBe(true);
      expect(report.otelApi.loaded, detail).toEqual([ROOT_OTEL_API]);
      expect(report.otelApi.fromFixture).toBe(ROOT_OTEL_API);
      // Module hooks patched the SDK's Protocol in auto and register modes, never in manual mode.
      const hooked = c.mode !== 'manual';
      expect(report.patched, detail).toEqual({ client: hooked, server: hooked });

      const spans = await receiver.waitFor(
        run,
        (s) =>
          hasCallPair(s, 'fail') &&
          hasCallPair(s, 'ok') &&
          findSpan(s, 'tools/call never', SPAN_KIND_CLIENT) !== undefined,
      );
      expect(receiver.rejectedOf(run)).toEqual([]);
      const names = spans.map((s) => `${s.kind === SPAN_KIND_SERVER ? 'S' : 'C'} ${s.name}`);
      const spanDetail = `${detail}\n--- spans\n${names.join('\n')}`;
      expect(hasCallPair(spans, 'fail'), spanDetail).toBe(true);
      expect(hasCallPair(spans, 'ok'), spanDetail).toBe(true);
      for (const s of spans) expect(s.scope).toBe(PACKAGE_NAME);

      // The failing call: one trace, server span parented on the client span, and the trace ID
      // is the correlationId the client received in the failure object.
      const failure = report.results.fail._meta?.[TOOL_FAILURE_META_KEY] as
        { class: string; code: string; correlationId: string } | undefined;
      expect(report.results.fail.isError).toBe(true);
      expect(failure, detail).toMatchObject({ class: 'governance', code: 'permission_denied' });
      const client = findSpan(spans, 'tools/call fail', SPAN_KIND_CLIENT);
      const server = findSpan(spans, 'tools/call fail', SPAN_KIND_SERVER);
      expect(client?.traceId).toMatch(HEX32);
      expect(server?.traceId).toBe(client?.traceId);
      expect(server?.parentSpanId).toBe(client?.spanId);
      expect(failure?.correlationId).toBe(client?.traceId);
      for (const span of [client, server]) {
        expect(span?.attributes['mcp.tool.failure.class']).toBe('governance');
        expect(span?.attributes['mcp.tool.failure.code']).toBe('permission_denied');
        expect(span?.attributes['mcp.tool.failure.correlation_id']).toBe(client?.traceId);
        expect(span?.attributes['gen_ai.tool.name']).toBe('fail');
        expect(span?.attributes['network.transport']).toBe(
          c.transport === 'stdio' ? 'pipe' : 'inproc',
        );
      }

      // The succeeding call: same trace shape, no failure.
      expect(report.results.ok.isError ?? false).toBe(false);
      expect(report.results.ok._meta?.[TOOL_FAILURE_META_KEY]).toBeUndefined();
      const okClient = findSpan(spans, 'tools/call ok', SPAN_KIND_CLIENT);
      const okServer = findSpan(spans, 'tools/call ok', SPAN_KIND_SERVER);
      expect(okServer?.traceId).toBe(okClient?.traceId);
      expect(okServer?.parentSpanId).toBe(okClient?.spanId);
      expect(okClient?.traceId).not.toBe(client?.traceId);
      for (const span of [okClient, okServer])
        expect(span?.attributes['mcp.tool.failure.class']).toBeUndefined();

      // A call aborted before sending: the signal is found in this SDK's request() options.
      expect(report.results.cancelled).not.toBe('resolved');
      const never = findSpan(spans, 'tools/call never', SPAN_KIND_CLIENT);
      expect(never?.attributes['error.type'], spanDetail).toBe('cancelled');
      expect(findSpan(spans, 'tools/call never', SPAN_KIND_SERVER)).toBeUndefined();
    },
    120_000,
  );
});
