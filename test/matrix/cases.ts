import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURES_DIR = join(ROOT, 'test', 'fixtures');

/** One fixture folder `test/fixtures/sdk-<version>/`: one MCP SDK version, installed on its own. */
export interface Fixture {
  /** Folder name, e.g. `sdk-1.10.2`. */
  name: string;
  dir: string;
  version: string;
  /** 1 for `@modelcontextprotocol/sdk`, 2 for the split `client` + `server` packages. */
  line: 1 | 2;
  /** The MCP packages the fixture installs, as `package.json` names them. */
  packages: string[];
}

/** An OpenTelemetry JS line: `test/fixtures/otel-<line>/`, and the tree its packages come from. */
export interface OtelLine {
  /** `2.x` or `3.x`. */
  name: '2.x' | '3.x';
  /** The line's folder: its `otel.cjs` and `otel.mjs` resolve the line's packages from there. */
  dir: string;
  /** The `node_modules` holding the line's `@opentelemetry/*`. */
  nodeModules: string;
  /** Pinned version of `@opentelemetry/api`. */
  api: string;
  /** Pinned versions by name: api, the trace SDK, sdk-node, instrumentation. */
  pinned: Record<string, string>;
}

/** A Node.js major and the OpenTelemetry JS line the matrix runs on it. */
export interface Platform {
  node: 20 | 26;
  line: OtelLine;
}

function dependencies(manifest: string): Record<string, string> {
  const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  // The repository pins its devDependencies; its dependencies are ranges.
  return { ...json.dependencies, ...json.devDependencies };
}

function otelLine(
  name: OtelLine['name'],
  manifest: string,
  nodeModules: string,
  traceSdk: string,
): OtelLine {
  const deps = dependencies(manifest);
  const pinned = (pkg: string): string => {
    const version = deps[pkg];
    if (version === undefined || !/^\d+\.\d+\.\d+$/.test(version))
      throw new Error(`${manifest} does not pin ${pkg} (${String(version)})`);
    return version;
  };
  const names = [
    '@opentelemetry/api',
    traceSdk,
    '@opentelemetry/sdk-node',
    '@opentelemetry/instrumentation',
  ];
  return {
    name,
    dir: join(FIXTURES_DIR, `otel-${name}`),
    nodeModules,
    api: pinned('@opentelemetry/api'),
    pinned: Object.fromEntries(names.map((n) => [n, pinned(n)])),
  };
}

/**
 * Node.js 20 with the 2.x line (the repository's own devDependencies) and Node.js 26, the active LTS
 * line, with the 3.x line (test/fixtures/otel-3.x/, which needs Node.js >= 22.15). Node.js 22 and 24
 * run both lines in the packaging tests (test/packaging/lines.test.ts).
 */
export function platforms(): Platform[] {
  const otel3 = join(FIXTURES_DIR, 'otel-3.x');
  return [
    {
      node: 20,
      line: otelLine(
        '2.x',
        join(ROOT, 'package.json'),
        join(ROOT, 'node_modules'),
        '@opentelemetry/sdk-trace-node',
      ),
    },
    {
      node: 26,
      line: otelLine(
        '3.x',
        join(otel3, 'package.json'),
        join(otel3, 'node_modules'),
        '@opentelemetry/sdk-trace',
      ),
    },
  ];
}

export const MODULE_SYSTEMS = ['cjs', 'esm'] as const;
export const MODES = ['auto', 'register', 'manual'] as const;
export const SERVER_APIS = ['McpServer', 'Server'] as const;
export type ModuleSystem = (typeof MODULE_SYSTEMS)[number];
export type Mode = (typeof MODES)[number];
export type ServerApi = (typeof SERVER_APIS)[number];
/**
 * The Streamable HTTP modes of SDK 2.x (2.x fixtures only), each a server on 127.0.0.1 in the
 * app's process: sessionful 2025-11-25, a stateless server per request, the SDK's
 * `createMcpHandler` answering a 2025 client, a client pinned to 2026-07-28, and `auto`.
 */
export const HTTP_TRANSPORTS = [
  'http-sessionful',
  'http-stateless',
  'http-handler',
  'http-pinned',
  'http-auto',
] as const;
export type HttpTransport = (typeof HTTP_TRANSPORTS)[number];
/**
 * The SDK 2.x client in each of its negotiation modes (2025-11-25 by default, pinned to
 * 2026-07-28, `auto`) against `mcp-failure-proxy --revision 2026-07-28`, whose stdio upstream
 * is the app itself (2.x fixtures, on the platform whose tree holds the proxy's own SDKs).
 */
export const PROXY_TRANSPORTS = ['proxy-default', 'proxy-pinned', 'proxy-auto'] as const;
export type ProxyTransport = (typeof PROXY_TRANSPORTS)[number];
export type Transport = 'inmemory' | 'stdio' | HttpTransport | ProxyTransport;

/** How the version matrix table (docs/supported-versions.md) names each transport. */
export const TRANSPORT_LABELS: Record<Transport, string> = {
  inmemory: 'in-memory',
  stdio: 'stdio',
  'http-sessionful': 'HTTP sessionful',
  'http-stateless': 'HTTP stateless',
  'http-handler': 'HTTP createMcpHandler',
  'http-pinned': 'HTTP 2026-07-28 pinned',
  'http-auto': 'HTTP auto',
  'proxy-default': 'proxy 2026-07-28 mode (2025 client)',
  'proxy-pinned': 'proxy 2026-07-28 mode (pinned client)',
  'proxy-auto': 'proxy 2026-07-28 mode (auto client)',
};

/**
 * The protocol version each HTTP mode ends up speaking, whether it has a session, and whether the
 * server declares the extension in `capabilities.extensions` (2026-07-28's `server/discover`;
 * 2025-11-25 has no such field).
 */
export const HTTP_EXPECTED: Record<
  HttpTransport,
  { version: string; session: boolean; declared: boolean }
> = {
  'http-sessionful': { version: '2025-11-25', session: true, declared: false },
  'http-stateless': { version: '2025-11-25', session: false, declared: false },
  'http-handler': { version: '2025-11-25', session: false, declared: false },
  'http-pinned': { version: '2026-07-28', session: false, declared: true },
  'http-auto': { version: '2026-07-28', session: false, declared: true },
};

/**
 * The protocol version the client and the proxy's SERVER span speak in each proxy case (the
 * proxy's CLIENT span and the upstream speak 2025-11-25 over stdio); no session in any.
 */
export const PROXY_EXPECTED: Record<ProxyTransport, { version: string }> = {
  'proxy-default': { version: '2025-11-25' },
  'proxy-pinned': { version: '2026-07-28' },
  'proxy-auto': { version: '2026-07-28' },
};

/** One child-process run of a fixture app. */
export interface MatrixCase {
  fixture: Fixture;
  platform: Platform;
  moduleSystem: ModuleSystem;
  mode: Mode;
  api: ServerApi;
  transport: Transport;
  /** Test name. */
  label: string;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The fixture folders, oldest SDK first. */
export function listFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const name of readdirSync(FIXTURES_DIR)) {
    const m = /^sdk-(\d+\.\d+\.\d+)$/.exec(name);
    if (m?.[1] === undefined) continue;
    const dir = join(FIXTURES_DIR, name);
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const packages = Object.keys(json.dependencies ?? {}).filter((p) =>
      p.startsWith('@modelcontextprotocol/'),
    );
    out.push({
      name,
      dir,
      version: m[1],
      line: m[1].startsWith('1.') ? 1 : 2,
      packages: packages.sort(),
    });
  }
  return out.sort((a, b) => compareVersions(a.version, b.version));
}

/**
 * Every fixture under both module systems, the three modes and both server APIs over the
 * in-memory transport, plus one stdio run (two processes) per fixture and module system and, for
 * 2.x, one run per Streamable HTTP mode under the register entry, and on the 2.x line one run
 * per client mode through the proxy in 2026-07-28 mode.
 */
export function matrixCases(fixture: Fixture, platform: Platform): MatrixCase[] {
  const out: MatrixCase[] = [];
  const add = (
    moduleSystem: ModuleSystem,
    mode: Mode,
    api: ServerApi,
    transport: Transport,
  ): void => {
    out.push({
      fixture,
      platform,
      moduleSystem,
      mode,
      api,
      transport,
      label: `${moduleSystem} ${mode} ${api} ${transport}`,
    });
  };
  for (const moduleSystem of MODULE_SYSTEMS) {
    for (const mode of MODES)
      for (const api of SERVER_APIS) add(moduleSystem, mode, api, 'inmemory');
    add(moduleSystem, 'register', 'McpServer', 'stdio');
    // The zero-code entry over each Streamable HTTP mode of 2.x.
    if (fixture.line === 2)
      for (const transport of HTTP_TRANSPORTS)
        add(moduleSystem, 'register', 'McpServer', transport);
    // The proxy CLI needs its own SDKs (1.x and 2.x), which only the 2.x tree (the repository's
    // devDependencies) has.
    if (fixture.line === 2 && platform.line.name === '2.x')
      for (const transport of PROXY_TRANSPORTS)
        add(moduleSystem, 'register', 'McpServer', transport);
  }
  return out;
}

/** The AI SDK's MCP client row: test/fixtures/ai-sdk/, `@ai-sdk/mcp` with `ai`, pinned there. */
export interface AiSdkFixture {
  dir: string;
  /** Pinned `@ai-sdk/mcp`. */
  version: string;
  /** Pinned `ai` (generateText and the mock model) and `@ai-sdk/otel` (its telemetry). */
  ai: string;
  otel: string;
}

export function aiSdkFixture(): AiSdkFixture {
  const dir = join(FIXTURES_DIR, 'ai-sdk');
  const deps = dependencies(join(dir, 'package.json'));
  const pinned = (name: string): string => {
    const version = deps[name];
    if (version === undefined || !/^\d+\.\d+\.\d+$/.test(version))
      throw new Error(`test/fixtures/ai-sdk does not pin ${name} (${String(version)})`);
    return version;
  };
  return { dir, version: pinned('@ai-sdk/mcp'), ai: pinned('ai'), otel: pinned('@ai-sdk/otel') };
}

/** How the AI SDK row enables the instrumentation: `nodesdk` is `new NodeSDK({ instrumentations })`. */
export const AI_SDK_MODES = ['nodesdk', 'register', 'manual'] as const;
/** Every transport `@ai-sdk/mcp` 2.x offers. */
export const AI_SDK_TRANSPORTS = ['http', 'sse', 'stdio'] as const;
export type AiSdkMode = (typeof AI_SDK_MODES)[number];
export type AiSdkTransport = (typeof AI_SDK_TRANSPORTS)[number];
/** How its AI SDK table names each mode and transport. */
export const AI_SDK_LABELS: Record<AiSdkMode | AiSdkTransport, string> = {
  nodesdk: 'NodeSDK',
  register: 'register',
  manual: 'manual',
  http: 'Streamable HTTP',
  sse: 'SSE',
  stdio: 'stdio',
};

export interface AiSdkCase {
  platform: Platform;
  moduleSystem: ModuleSystem;
  mode: AiSdkMode;
  transport: AiSdkTransport;
  label: string;
}

/**
 * Both module systems in the three modes over Streamable HTTP, plus SSE (ES modules) and stdio
 * (CommonJS) under the register entry; the same on every platform.
 */
export function aiSdkCases(platform: Platform): AiSdkCase[] {
  const out: AiSdkCase[] = [];
  for (const moduleSystem of MODULE_SYSTEMS) {
    const add = (mode: AiSdkMode, transport: AiSdkTransport): void => {
      out.push({
        platform,
        moduleSystem,
        mode,
        transport,
        label: `${moduleSystem} ${mode} ${transport}`,
      });
    };
    for (const mode of AI_SDK_MODES) add(mode, 'http');
    add('register', moduleSystem === 'esm' ? 'sse' : 'stdio');
  }
  return out;
}
