/**
 * The four packages of the workspace as users get them from the registry: each packed tarball,
 * installed for real into fresh projects with the npm of each Node.js line, npm handed the
 * tarballs of the workspace packages it depends on as the registry would serve them. The root
 * depends on the data model alone and carries none of the other packages' code; the proxy and the
 * kit depend on what they run on, so each installs alone, and their executables run by their
 * names (the kit checking the installed proxy with the vectors it ships).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../observability/helpers.js';
import { runtimes } from '../helpers/runtimes.js';
import { workspacePackages } from '../../scripts/workspace.mjs';
import { copiesOf, NAME, node, npmInstall, pack, type Packed } from './install.js';

const members = workspacePackages().slice(1);
const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies?: Record<string, string>;
    bin?: Record<string, string>;
  };
const DATA_MODEL = '@omcp/tool-failure';
const PROXY = '@omcp/mcp-failure-proxy';
const KIT = '@omcp/mcp-failures';
const quiet = {
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
};

/** A fresh project with `tarballs` and `extra` installed by `runtime`'s npm. */
async function install(
  runtime: ReturnType<typeof runtimes>[number],
  prefix: string,
  args: string[],
) {
  const project = tempDir(prefix);
  writeFileSync(join(project, 'package.json'), '{ "name": "app", "private": true }\n');
  await npmInstall(runtime, project, args);
  return project;
}

/** The installed executable `bin` of package `name` in `project`, by the path its manifest names. */
function binOf(project: string, name: string, bin: string): string {
  const dir = join(project, 'node_modules', name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  return join(dir, manifest.bin[bin]!);
}

let root: Packed;
beforeAll(() => {
  root = pack();
});

describe('the root package', () => {
  it('depends on the data model alone, by its version, and carries no other package', () => {
    const manifest = manifestOf('.');
    const own = Object.keys(manifest.dependencies ?? {}).filter((n) => n.startsWith('@omcp/'));
    expect(own).toEqual([DATA_MODEL]);
    expect(manifest.dependencies![DATA_MODEL]).toBe(manifestOf('packages/tool-failure').version);
    expect(manifest.bin).toBeUndefined();
    expect(
      root.files.filter((f) => f.startsWith('packages/') || f.startsWith('node_modules/')),
    ).toEqual([]);
    expect(root.install).toHaveLength(2);
  });
});

describe.each(runtimes())('the root package installed on Node.js $major', (runtime) => {
  let project: string;
  beforeAll(async () => {
    // The API of the OpenTelemetry JS line npm picks for this Node.js (docs/supported-versions.md).
    const api = runtime.major === 20 ? '@opentelemetry/api@1.9.1' : '@opentelemetry/api@1.10.0';
    project = await install(runtime, `omcp-root-node${runtime.major}`, [
      ...root.install,
      api,
      '@modelcontextprotocol/sdk@1.32.2',
    ]);
  }, 400_000);

  it('holds one copy of itself and of the data model, and nothing of the proxy or the kit', () => {
    for (const [name, dir] of [
      [NAME, '.'],
      [DATA_MODEL, 'packages/tool-failure'],
    ] as const)
      expect(copiesOf(project, name), name).toEqual([
        { version: manifestOf(dir).version, path: join(project, 'node_modules', name) },
      ]);
    expect(copiesOf(project, PROXY)).toEqual([]);
    expect(copiesOf(project, KIT)).toEqual([]);
  });
});

describe('each package installed alone, on the lowest Node.js line', () => {
  const runtime = runtimes()[0]!;
  const packs = new Map<string, Packed>();
  beforeAll(() => {
    for (const member of members) packs.set(member.name, pack(join(ROOT, member.dir)));
  });

  it('the proxy brings what it runs on, one copy each, and its executable runs', async () => {
    const proxy = packs.get(PROXY)!;
    const project = await install(runtime, 'omcp-proxy-alone', [
      ...proxy.install,
      '@opentelemetry/api@1.9.1',
      '@modelcontextprotocol/sdk@1.32.2',
    ]);
    for (const name of [PROXY, NAME, DATA_MODEL])
      expect(copiesOf(project, name), name).toHaveLength(1);
    expect(copiesOf(project, KIT)).toEqual([]);
    expect(readdirSync(join(project, 'node_modules', '.bin'))).toContain('mcp-failure-proxy');
    const help = await node(runtime, project, [
      binOf(project, PROXY, 'mcp-failure-proxy'),
      '--help',
    ]);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mcp-failure-proxy /);
  }, 400_000);

  it('the kit brings the proxy and the instrumentation, and checks that proxy with its own vectors: PASS', async () => {
    const kit = packs.get(KIT)!;
    const project = await install(runtime, 'omcp-kit-alone', [
      ...kit.install,
      '@opentelemetry/api@1.9.1',
      '@modelcontextprotocol/sdk@1.32.2',
    ]);
    for (const name of [KIT, PROXY, NAME, DATA_MODEL])
      expect(copiesOf(project, name), name).toHaveLength(1);
    const help = await node(runtime, project, [binOf(project, KIT, 'mcp-failures'), '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mcp-failures /);
    const check = await node(
      runtime,
      project,
      [
        binOf(project, KIT, 'mcp-failures'),
        'check',
        'proxy',
        '--',
        runtime.node,
        binOf(project, PROXY, 'mcp-failure-proxy'),
        '--stdio',
        '--',
        '{upstream}',
      ],
      quiet,
    );
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(check.stdout.trimEnd().split('\n').at(-1)).toBe('PASS');
  }, 400_000);

  it('the proxy without an MCP SDK says so in one line, with the command that installs it', async () => {
    const proxy = packs.get(PROXY)!;
    const project = await install(runtime, 'omcp-proxy-no-sdk', [
      ...proxy.install,
      '@opentelemetry/api@1.9.1',
    ]);
    const run = await node(
      runtime,
      project,
      [binOf(project, PROXY, 'mcp-failure-proxy'), '--stdio', '--', runtime.node, '-e', ''],
      quiet,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^mcp-failure-proxy: @modelcontextprotocol\/sdk is not installed, and it runs on it: npm install '@modelcontextprotocol\/sdk@[^']+'\n$/,
    );
  }, 400_000);
});
