import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME } from '../../src/version.js';
import { TOOL_FAILURE_META_KEY } from '../../packages/tool-failure/src/constants.js';
import { runtimeOf } from '../helpers/runtimes.js';
import {
  FIXTURES_DIR,
  HTTP_EXPECTED,
  PROXY_EXPECTED,
  type HttpTransport,
  type ProxyTransport,
  listFixtures,
  matrixCases,
  platforms,
  type Fixture,
  type MatrixCase,
  type Platform,
} from './cases.js';
import {
  OtlpReceiver,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  type ReceivedSpan,
} from './otlp-receiver.js';
import { childEnv, limited, runChild, useLinePackages } from './children.js';

/**
 * The version matrix: every fixture SDK (test/fixtures/sdk-<version>/, installed by
 * scripts/install-fixtures.mjs) under CommonJS and ES modules, in the three ways of enabling
 * the instrumentation, with McpServer and the low-level Server, on two platforms: Node.js 20
 * with the OpenTelemetry JS 2.x line and Node.js 26 with the 3.x line. Each case is a child
 * process whose client calls a failing and a succeeding tool; spans reach the test over
 * OTLP/HTTP JSON.
 *
 * Where OpenTelemetry comes from. A line is a folder test/fixtures/otel-<line>/ whose otel.cjs
 * and otel.mjs (the tracer provider setup, registerInstrumentations, the loader hook) resolve
 * the line's packages from there, and a copy of this package that resolves the same ones:
 * - 2.x: the repository's own devDependencies. otel-2.x/ has no node_modules, so it resolves
 *   from the repository root, and the package is the repository itself (dist/, register/).
 * - 3.x: otel-3.x/ pins the line (api 1.10, sdk-trace 3.1, sdk-node and instrumentation 0.301)
 *   in its own package-lock.json, one copy of each. The package cannot run from the
 *   repository there (its dist/ would resolve the root's api 1.9), so beforeAll copies the
 *   files it ships (package.json `files`) into a fresh folder in otel-3.x/node_modules, where
 *   its imports resolve exactly as an installed package's do; each test run has its own copy
 *   (concurrent runs never share one) and removes it afterwards. No link into the repository.
 * The MCP SDK still comes from each sdk-<version>/ fixture. The child learns both places from
 * MATRIX_OTEL_DIR and MATRIX_PACKAGE_DIR (matrix-shared/line.cjs) and runs with its working
 * directory in the line's folder, where the register entry looks for sdk-node first. Each run
 * reports every @opentelemetry/* package it required: all of them must be from the line's
 * tree, with one @opentelemetry/api, the one the package resolves, owning the global registry
 * at the line's version.
 */

const CHILD_TIMEOUT_MS = 30_000;
/** Through the proxy three processes start (app, proxy, upstream), each loading OpenTelemetry. */
const PROXY_CHILD_TIMEOUT_MS = 75_000;
const HEX32 = /^[0-9a-f]{32}$/;
const NODE = new Map(platforms().map((p) => [p.node, runtimeOf(p.node).node]));

/** What a fixture app prints as its last stdout line. */
interface AppReport {
  sdk: { name: string; version: string; dir: string } | undefined;
  patched: { client: boolean; server: boolean };
  otel: {
    /** Folder to version. */
    packages: Record<string, string>;
    loaded: string[];
    fromPackage: string | undefined;
    registryVersion: string;
  };
  capabilities: { extensions?: Record<string, unknown> } | undefined;
  results: {
    fail: { isError?: boolean; _meta?: Record<string, unknown> };
    ok: { isError?: boolean; _meta?: Record<string, unknown> };
    cancelled: string;
  };
}

const receiver = new OtlpReceiver();
/** This package's root for each line: the repository, or the run's copy in the line's tree. */
const packageDir = useLinePackages(
  platforms().map((p) => p.line),
  receiver,
);

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
      return [flag, join(packageDir(c.platform.line), 'register', `index.${ext}`)];
  }
}

function runApp(
  c: MatrixCase,
  endpoint: string,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const app = join(c.fixture.dir, c.moduleSystem === 'esm' ? 'app.mjs' : 'app.cjs');
  const node = NODE.get(c.platform.node);
  if (node === undefined) throw new Error(`no Node.js ${c.platform.node}`);
  const { line } = c.platform;
  const env = childEnv(line, packageDir(line), `matrix-${c.fixture.name}`, endpoint, {
    MATRIX_MODE: c.mode,
    MATRIX_API: c.api === 'McpServer' ? 'mcpserver' : 'lowlevel',
    MATRIX_TRANSPORT: c.transport,
  });
  const timeout = c.transport.startsWith('proxy-') ? PROXY_CHILD_TIMEOUT_MS : CHILD_TIMEOUT_MS;
  return runChild(node, [...preloadFlags(c), app], line, env, timeout);
}

function findSpan(spans: ReceivedSpan[], name: string, kind: number): ReceivedSpan | undefined {
  return spans.find((s) => s.name === name && s.kind === kind);
}

/**
 * Through the proxy, one call's four spans, found by their links: the app's CLIENT span (the
 * root), the proxy's SERVER span under it, the proxy's CLIENT span under that, and the
 * upstream's SERVER span under the proxy's CLIENT span.
 */
function proxyChain(spans: ReceivedSpan[], tool: string): Array<ReceivedSpan | undefined> {
  const name = `tools/call ${tool}`;
  const client = spans.find(
    (s) => s.name === name && s.kind === SPAN_KIND_CLIENT && s.parentSpanId === undefined,
  );
  const under = (parent: ReceivedSpan | undefined, kind: number): ReceivedSpan | undefined =>
    parent === undefined
      ? undefined
      : spans.find((s) => s.name === name && s.kind === kind && s.parentSpanId === parent.spanId);
  const proxyServer = under(client, SPAN_KIND_SERVER);
  const proxyClient = under(proxyServer, SPAN_KIND_CLIENT);
  return [client, proxyServer, proxyClient, under(proxyClient, SPAN_KIND_SERVER)];
}

function hasCallPair(spans: ReceivedSpan[], tool: string): boolean {
  const name = `tools/call ${tool}`;
  return (
    findSpan(spans, name, SPAN_KIND_CLIENT) !== undefined &&
    findSpan(spans, name, SPAN_KIND_SERVER) !== undefined
  );
}

const fixtures = listFixtures();

describe('the version matrix', () => {
  it('has at least three SDK 1.x fixtures and one 2.x fixture', () => {
    expect(fixtures.filter((f) => f.line === 1).length).toBeGreaterThanOrEqual(3);
    expect(fixtures.filter((f) => f.line === 2).length).toBeGreaterThanOrEqual(1);
  });
});

describe('the OpenTelemetry JS 3.x tree', () => {
  it('holds one copy of each @opentelemetry package, all of the 3.x line', () => {
    const lock = JSON.parse(
      readFileSync(join(FIXTURES_DIR, 'otel-3.x', 'package-lock.json'), 'utf8'),
    ) as { packages: Record<string, { version?: string }> };
    const otel = Object.entries(lock.packages).filter(([path]) => path.includes('@opentelemetry/'));
    // Nested copies would be a second instance of a package beside the top-level one.
    expect(otel.filter(([path]) => path.lastIndexOf('node_modules/') > 0)).toEqual([]);
    for (const [path, { version }] of otel) {
      const line = path.endsWith('/api')
        ? /^1\.10\./
        : path.endsWith('/semantic-conventions')
          ? /^1\./
          : /^(3\.|0\.3\d\d\.)/;
      expect(version, path).toMatch(line);
    }
  });
});

// A loop, not describe.each: each.() shortens long interpolated titles.
for (const platform of platforms()) {
  for (const fixture of fixtures) {
    defineCases(
      `${fixture.name} (${fixture.packages.join(' + ')}) on Node.js ${platform.node}, OpenTelemetry JS ${platform.line.name}`,
      fixture,
      platform,
    );
  }
}

function defineCases(title: string, fixture: Fixture, platform: Platform): void {
  describe(title, () => {
    const { line } = platform;
    const api = join(line.nodeModules, '@opentelemetry', 'api');
    it.concurrent.each(matrixCases(fixture, platform))(
      '$label',
      async (c) => {
        expect(
          existsSync(join(fixture.dir, 'node_modules')),
          `${fixture.name} is not installed: run node scripts/install-fixtures.mjs`,
        ).toBe(true);
        const run = `${fixture.name}-node${platform.node}-${c.label.replaceAll(' ', '-')}`;
        const child = await limited(() => runApp(c, receiver.endpoint(run)));
        const detail = `exit ${String(child.code)}\n--- stderr\n${child.stderr}\n--- stdout\n${child.stdout}`;
        expect(child.code, detail).toBe(0);
        const lines = child.stdout.trim().split('\n');
        const report = JSON.parse(lines[lines.length - 1] ?? '{}') as AppReport;

        // The app ran the fixture's own SDK, and OpenTelemetry from the line's tree only, with
        // one @opentelemetry/api: the one the package resolves, at the line's version.
        expect(report.sdk?.version, detail).toBe(fixture.version);
        expect(fixture.packages).toContain(report.sdk?.name);
        expect(report.sdk?.dir.startsWith(join(fixture.dir, 'node_modules')), detail).toBe(true);
        const loaded = Object.entries(report.otel.packages).map(([dir, version]) => ({
          dir,
          version,
          name: dir.slice(dir.lastIndexOf('@opentelemetry')).replaceAll(sep, '/'),
        }));
        expect(loaded.length, detail).toBeGreaterThan(0);
        for (const { dir, version, name } of loaded) {
          expect(dir.startsWith(line.nodeModules + sep), `${dir}\n${detail}`).toBe(true);
          // The line's pinned packages at the top of its tree are at the pinned version (2.x's
          // sdk-node nests some of its own; 3.x nests none, as its lock file test checks).
          if (dir === join(line.nodeModules, ...name.split('/')))
            expect(version, dir).toBe(line.pinned[name] ?? version);
        }
        // One copy of each package this package imports.
        for (const name of ['@opentelemetry/api', '@opentelemetry/instrumentation'])
          expect(loaded.filter((p) => p.name === name).length, `${name}\n${detail}`).toBeLessThan(
            2,
          );
        expect(report.otel.loaded, detail).toEqual([api]);
        expect(report.otel.fromPackage).toBe(api);
        expect(report.otel.registryVersion).toBe(line.api);
        // The zero-code entry says which line it started: the one of the tree it runs from.
        if (c.mode === 'register')
          expect(child.stderr, detail).toContain(`OpenTelemetry JS ${line.name}`);
        // Module hooks patched the SDK's Protocol in auto and register modes, never in manual mode.
        const hooked = c.mode !== 'manual';
        expect(report.patched, detail).toEqual({ client: hooked, server: hooked });

        const proxied = PROXY_EXPECTED[c.transport as ProxyTransport] as
          (typeof PROXY_EXPECTED)[ProxyTransport] | undefined;
        const spans = await receiver.waitFor(
          run,
          (s) =>
            hasCallPair(s, 'fail') &&
            hasCallPair(s, 'ok') &&
            (proxied === undefined ||
              (proxyChain(s, 'fail').every((x) => x !== undefined) &&
                proxyChain(s, 'ok').every((x) => x !== undefined))) &&
            findSpan(s, 'tools/call never', SPAN_KIND_CLIENT) !== undefined,
        );
        expect(receiver.rejectedOf(run)).toEqual([]);
        const names = spans.map((s) => `${s.kind === SPAN_KIND_SERVER ? 'S' : 'C'} ${s.name}`);
        const spanDetail = `${detail}\n--- spans\n${names.join('\n')}`;
        expect(hasCallPair(spans, 'fail'), spanDetail).toBe(true);
        expect(hasCallPair(spans, 'ok'), spanDetail).toBe(true);
        for (const s of spans) expect(s.scope).toBe(PACKAGE_NAME);

        if (proxied !== undefined) {
          expectProxied(report, spans, proxied.version, spanDetail);
          return;
        }

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
            c.transport === 'stdio' ? 'pipe' : c.transport === 'inmemory' ? 'inproc' : 'tcp',
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

        // Over Streamable HTTP: the protocol version the mode speaks on both spans of both
        // calls, and a session id only where there is a session.
        const http = HTTP_EXPECTED[c.transport as HttpTransport] as
          (typeof HTTP_EXPECTED)[HttpTransport] | undefined;
        if (http !== undefined) {
          for (const span of [client, server, okClient, okServer]) {
            expect(span?.attributes['mcp.protocol.version'], spanDetail).toBe(http.version);
            if (http.session) expect(typeof span?.attributes['mcp.session.id']).toBe('string');
            else expect(span?.attributes['mcp.session.id']).toBeUndefined();
          }
        }

        // The declaration: in the server/discover result of the 2026-07-28 modes only (2025-11-25
        // has no capabilities.extensions), and on the client spans as the client holds it.
        const declared = http?.declared ?? false;
        expect(report.capabilities?.extensions?.[TOOL_FAILURE_META_KEY], detail).toEqual(
          declared ? {} : undefined,
        );
        for (const span of [client, okClient])
          expect(span?.attributes['mcp.tool.failure.peer_declared'], spanDetail).toBe(declared);
        if (http?.version === '2026-07-28') {
          // The connect-time probe: a client span, and the server's span for it in its trace.
          const probe = findSpan(spans, 'server/discover', SPAN_KIND_CLIENT);
          const served = findSpan(spans, 'server/discover', SPAN_KIND_SERVER);
          expect(probe?.attributes['mcp.tool.failure.peer_declared'], spanDetail).toBe(true);
          expect(served?.traceId, spanDetail).toBe(probe?.traceId);
          expect(served?.parentSpanId).toBe(probe?.spanId);
        }

        // A call aborted before sending: the signal is found in this SDK's request() options.
        expect(report.results.cancelled).not.toBe('resolved');
        const never = findSpan(spans, 'tools/call never', SPAN_KIND_CLIENT);
        expect(never?.attributes['error.type'], spanDetail).toBe('cancelled');
        expect(findSpan(spans, 'tools/call never', SPAN_KIND_SERVER)).toBeUndefined();
      },
      // Includes the wait for a slot of `limited`, behind cases of three processes (proxy-*).
      240_000,
    );
  });
}

/**
 * A run through the proxy: each call is one trace of four spans (app CLIENT → proxy SERVER →
 * proxy CLIENT → upstream SERVER); the failure the upstream classified reaches the app
 * unchanged, its correlationId the trace ID, and every span of the failing call records it.
 * The app's and the proxy's SERVER spans speak the client's revision, the two upstream-side
 * spans 2025-11-25 over stdio; no span has a session (the endpoint keeps none).
 */
function expectProxied(
  report: AppReport,
  spans: ReceivedSpan[],
  version: string,
  detail: string,
): void {
  const failure = report.results.fail._meta?.[TOOL_FAILURE_META_KEY] as
    { class: string; code: string; correlationId: string } | undefined;
  expect(report.results.fail.isError).toBe(true);
  expect(failure, detail).toMatchObject({ class: 'governance', code: 'permission_denied' });
  const fail = proxyChain(spans, 'fail');
  const ok = proxyChain(spans, 'ok');
  const traceId = fail[0]?.traceId;
  expect(traceId, detail).toMatch(HEX32);
  expect(failure?.correlationId).toBe(traceId);
  for (const span of fail) {
    expect(span?.traceId, detail).toBe(traceId);
    expect(span?.attributes['mcp.tool.failure.class'], detail).toBe('governance');
    expect(span?.attributes['mcp.tool.failure.code']).toBe('permission_denied');
    expect(span?.attributes['mcp.tool.failure.correlation_id']).toBe(traceId);
    expect(span?.attributes['gen_ai.tool.name']).toBe('fail');
  }
  expect(report.results.ok.isError ?? false).toBe(false);
  expect(report.results.ok._meta?.[TOOL_FAILURE_META_KEY]).toBeUndefined();
  expect(ok[0]?.traceId).not.toBe(traceId);
  for (const span of ok) {
    expect(span?.traceId, detail).toBe(ok[0]?.traceId);
    expect(span?.attributes['mcp.tool.failure.class']).toBeUndefined();
  }
  for (const [client, proxyServer, proxyClient, upstream] of [fail, ok]) {
    for (const span of [client, proxyServer]) {
      expect(span?.attributes['mcp.protocol.version'], detail).toBe(version);
      expect(span?.attributes['network.transport']).toBe('tcp');
    }
    for (const span of [proxyClient, upstream]) {
      expect(span?.attributes['mcp.protocol.version'], detail).toBe('2025-11-25');
      expect(span?.attributes['network.transport']).toBe('pipe');
    }
    for (const span of [client, proxyServer, proxyClient, upstream])
      expect(span?.attributes['mcp.session.id']).toBeUndefined();
  }
  // Aborted before sending: the app's CLIENT span only, nothing reached the proxy.
  expect(report.results.cancelled).not.toBe('resolved');
  expect(findSpan(spans, 'tools/call never', SPAN_KIND_CLIENT)?.attributes['error.type']).toBe(
    'cancelled',
  );
  expect(findSpan(spans, 'tools/call never', SPAN_KIND_SERVER)).toBeUndefined();
}
