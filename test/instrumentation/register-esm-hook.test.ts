/**
 * The register entry's loader hook wraps the instrumented packages, not every module the
 * application imports (the largest part of a cold start otherwise), while another
 * instrumentation of the same import-in-the-middle copy still gets the modules it hooks; on
 * every Node.js line, whether the hook runs in the application's thread (`module.registerHooks`:
 * Node.js 22.22.3+, 26) or on the loader thread (`module.register`: 20, 24 before 24.11.1), and
 * with nothing on stderr but the entry's own line.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INSTRUMENTED_PACKAGES } from '../../src/instrumentation.js';
import { ESM_HOOK_VARIABLE, loaderHook, packagePattern } from '../../src/register/loader-hook.js';
import { runtimeOf, type Runtime } from '../helpers/runtimes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const apps = fileURLToPath(new URL('../fixtures/apps/', import.meta.url));

/** The fixture app under the register entry and a second instrumentation; its one JSON line. */
function runApp(
  env: Record<string, string> = {},
  runtime: Runtime = runtimeOf(20),
): {
  report: { yamlPatched: boolean; sdkWrapped: boolean; zodWrapped: boolean };
  stderr: string;
} {
  const run = spawnSync(
    runtime.node,
    [
      '--import',
      `${root}register/index.mjs`,
      '--import',
      './other-instrumentation.mjs',
      'esm-hook-app.mjs',
    ],
    {
      cwd: apps,
      env: {
        ...process.env,
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        ...env,
      },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  expect(run.status, run.stderr).toBe(0);
  return { report: JSON.parse(run.stdout.trim()) as never, stderr: run.stderr };
}

describe('packagePattern', () => {
  it("matches every file of the package wherever the package manager put it, and no other package's", () => {
    const sdk = packagePattern('@modelcontextprotocol/sdk');
    for (const url of [
      'file:///app/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js',
      'file:///app/node_modules/.pnpm/@modelcontextprotocol+sdk@1.32.2/node_modules/@modelcontextprotocol/sdk/dist/esm/shared/protocol.js',
      'file:///C:/app/node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js',
    ])
      expect(sdk.test(url), url).toBe(true);
    for (const url of [
      'file:///app/node_modules/@modelcontextprotocol/sdk-extra/index.js',
      'file:///app/node_modules/zod/index.js',
      'file:///app/src/@modelcontextprotocol/sdk/x.js',
    ])
      expect(sdk.test(url), url).toBe(false);
    expect(packagePattern('tmcp').test('file:///a/node_modules/tmcp-x/index.js')).toBe(false);
  });
});

describe('loaderHook', () => {
  it('lists each instrumented package, the probe, and a channel for other Hook calls', () => {
    const hook = loaderHook(`${root}register/index.mjs`, {});
    const include = hook.options?.data.include as RegExp[];
    for (const name of Object.values(INSTRUMENTED_PACKAGES))
      expect(include.map(String), name).toContain(String(packagePattern(name)));
    expect(
      include.some((r) => r.test('data:text/javascript,export const omcpEsmHookProbe = 1;')),
    ).toBe(true);
    expect(hook.options?.data.addHookMessagePort).toBeDefined();
  });

  it(`${ESM_HOOK_VARIABLE}=all wraps everything; another value is said once and the default kept`, () => {
    expect(
      loaderHook(`${root}register/index.mjs`, { [ESM_HOOK_VARIABLE]: ' ALL ' }).options,
    ).toBeUndefined();
    const said: string[] = [];
    const hook = loaderHook(`${root}register/index.mjs`, { [ESM_HOOK_VARIABLE]: 'some' }, (m) =>
      said.push(m),
    );
    expect(said).toEqual([
      `${ESM_HOOK_VARIABLE}=some is not instrumented or all; using the default`,
    ]);
    expect(hook.options?.data.include).toBeDefined();
  });
});

/** Where Node.js `major` (the one test/runtimes holds) runs the hook. */
const PLACE = {
  20: 'loader-thread',
  22: 'in-thread',
  24: 'loader-thread',
  26: 'in-thread',
} as const;

/** The place registerLoaderHook picks, asked in a process of `runtime`. */
function placeOn(runtime: Runtime): string {
  const run = spawnSync(
    runtime.node,
    [
      '--input-type=module',
      '-e',
      `const { registerLoaderHook } = await import(${JSON.stringify(`${root}dist/esm/register/loader-hook.js`)});
       process.stdout.write((await registerLoaderHook(${JSON.stringify(`${root}register/index.mjs`)})).place);`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

describe.each([20, 22, 24, 26] as const)('the register entry on Node.js %i', (major) => {
  const runtime = runtimeOf(major);

  it(`runs the hook ${PLACE[major]}`, () => {
    expect(placeOn(runtime)).toBe(PLACE[major]);
  }, 60_000);

  it('wraps the MCP SDK and what another instrumentation hooks, and leaves the rest alone; stderr holds its one line', () => {
    const { report, stderr } = runApp({}, runtime);
    expect(report).toEqual({ yamlPatched: true, sdkWrapped: true, zodWrapped: false });
    expect(stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^@omcp\/instrumentation-mcp\/register: OpenTelemetry JS 2\.x started /,
      ),
    ]);
  }, 60_000);

  it(`${ESM_HOOK_VARIABLE}=all wraps every module, as before`, () => {
    const { report } = runApp({ [ESM_HOOK_VARIABLE]: 'all' }, runtime);
    expect(report).toEqual({ yamlPatched: true, sdkWrapped: true, zodWrapped: true });
  }, 60_000);
});

describe('the register entry with a setting it does not know', () => {
  it('a value it does not know gets one line on stderr and the default', () => {
    const { report, stderr } = runApp({ [ESM_HOOK_VARIABLE]: 'everything' });
    expect(report.zodWrapped).toBe(false);
    const lines = stderr.split('\n').filter((l) => l.includes(ESM_HOOK_VARIABLE));
    expect(lines).toEqual([
      `@omcp/instrumentation-mcp: ${ESM_HOOK_VARIABLE}=everything is not instrumented or all; using the default`,
    ]);
  }, 60_000);
});
