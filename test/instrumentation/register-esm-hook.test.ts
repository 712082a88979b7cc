/**
 * The register entry's loader hook wraps the instrumented packages, not every module the
 * application imports (the largest part of a cold start otherwise), while another
 * instrumentation of the same import-in-the-middle copy still gets the modules it hooks.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INSTRUMENTED_PACKAGES } from '../../src/instrumentation.js';
import { ESM_HOOK_VARIABLE, loaderHook, packagePattern } from '../../src/register/loader-hook.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const apps = fileURLToPath(new URL('../fixtures/apps/', import.meta.url));

/** The fixture app under the register entry and a second instrumentation; its one JSON line. */
function runApp(env: Record<string, string> = {}): {
  report: { yamlPatched: boolean; sdkWrapped: boolean; zodWrapped: boolean };
  stderr: string;
} {
  const run = spawnSync(
    process.execPath,
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

describe('the register entry with another instrumentation in the process', () => {
  it('wraps the MCP SDK and what the other instrumentation hooks, and leaves the rest alone', () => {
    const { report } = runApp();
    expect(report).toEqual({ yamlPatched: true, sdkWrapped: true, zodWrapped: false });
  }, 60_000);

  it(`${ESM_HOOK_VARIABLE}=all wraps every module, as before`, () => {
    const { report } = runApp({ [ESM_HOOK_VARIABLE]: 'all' });
    expect(report).toEqual({ yamlPatched: true, sdkWrapped: true, zodWrapped: true });
  }, 60_000);

  it('a value it does not know gets one line on stderr and the default', () => {
    const { report, stderr } = runApp({ [ESM_HOOK_VARIABLE]: 'everything' });
    expect(report.zodWrapped).toBe(false);
    const lines = stderr.split('\n').filter((l) => l.includes(ESM_HOOK_VARIABLE));
    expect(lines).toEqual([
      `@omcp/instrumentation-mcp: ${ESM_HOOK_VARIABLE}=everything is not instrumented or all; using the default`,
    ]);
  }, 60_000);
});
