/**
 * The four packages of the workspace as users get them from the registry: each packed tarball,
 * installed for real into fresh projects with the npm of each Node.js line. The root depends on
 * the data model, the proxy and the kit by version and carries none of their code; installed, it
 * brings one copy of each, its deprecated subpaths hand out the very objects of their homes, and
 * every executable runs by its name (the kit checking the installed proxy with the vectors it
 * ships). The proxy and the kit installed without the root say so in one line each.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../observability/helpers.js';
import { runtimes } from '../helpers/runtimes.js';
import { workspacePackages } from '../../scripts/workspace.mjs';
import { copiesOf, NAME, node, npmInstall, pack, type Packed } from './install.js';

const members = workspacePackages().slice(1);
const versionOf = (dir: string): string =>
  (JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { version: string })
    .version;
/** The folders of src/ that are other packages' sources: none of them is the root's to ship. */
const OTHERS = members.flatMap((m) => m.sources).map((folder) => folder.replace(/^src\/|\/$/g, ''));

let root: Packed;
beforeAll(() => {
  root = pack();
}, 240_000);

describe('the root package and the workspace packages', () => {
  it('depends on each by its version and carries none of their code', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      bundleDependencies?: string[];
      bin: Record<string, string>;
    };
    for (const member of members)
      expect(manifest.dependencies[member.name], member.name).toBe(versionOf(member.dir));
    expect(manifest.bundleDependencies).toBeUndefined();
    // The root's executables keep their old paths in dist/esm/cli/: two lines each that run the
    // home package's (scripts/build.mjs); nothing else of another package's is shipped.
    const bins = Object.values(manifest.bin).map((b) => b.replace(/^\.\//, ''));
    const theirs = root.files.filter(
      (f) =>
        !bins.includes(f) &&
        (f.startsWith('node_modules/') ||
          OTHERS.some(
            (o) =>
              f.startsWith(`src/${o}/`) || (/^dist\/(esm|cjs)\//.test(f) && f.split('/')[2] === o),
          )),
    );
    expect(theirs).toEqual([]);
    // What npm is handed for the root: its tarball and one of each package it depends on.
    expect(root.install).toHaveLength(1 + members.length);
  });
});

describe.each(runtimes())('the root package installed on Node.js $major', (runtime) => {
  let project: string;
  beforeAll(async () => {
    project = tempDir(`omcp-workspace-node${runtime.major}`);
    writeFileSync(join(project, 'package.json'), '{ "name": "app", "private": true }\n');
    // The API of the OpenTelemetry JS line npm picks for this Node.js (docs/supported-versions.md).
    const api = runtime.major === 20 ? '@opentelemetry/api@1.9.1' : '@opentelemetry/api@1.10.0';
    await npmInstall(runtime, project, [...root.install, api, '@modelcontextprotocol/sdk@1.32.2']);
  }, 400_000);

  it('holds one copy of each package, at the version the root depends on', () => {
    for (const { name, dir } of [{ name: NAME, dir: '.' }, ...members])
      expect(copiesOf(project, name), name).toEqual([
        { version: versionOf(dir), path: join(project, 'node_modules', name) },
      ]);
  });

  it.each(['esm', 'cjs'] as const)(
    'gives from %s the very objects of each home through its deprecated subpath',
    async (kind) => {
      const pairs = [
        ['@omcp/tool-failure', `${NAME}/tool-failure`],
        ['@omcp/mcp-failure-proxy', `${NAME}/proxy`],
      ];
      const file = join(project, kind === 'esm' ? 'same.mjs' : 'same.cjs');
      const load =
        kind === 'esm'
          ? (spec: string) => `await import('${spec}')`
          : (spec: string) => `require('${spec}')`;
      const body = pairs
        .map(
          ([home, old]) => `{
            const a = ${load(home!)}, b = ${load(old!)};
            const names = Object.keys(a).filter((k) => k !== 'default');
            out.push({ home: '${home}', names: names.length,
              same: JSON.stringify(names.sort()) === JSON.stringify(Object.keys(b).filter((k) => k !== 'default').sort()),
              differ: names.filter((k) => !Object.is(a[k], b[k])) });
          }`,
        )
        .join('\n');
      writeFileSync(
        file,
        kind === 'esm'
          ? `const out = [];\n${body}\nconsole.log(JSON.stringify(out));`
          : `(async () => { const out = [];\n${body}\nconsole.log(JSON.stringify(out)); })();`,
      );
      const result = await node(runtime, project, [file]);
      expect(result.stderr).toBe('');
      const out = JSON.parse(result.stdout) as Array<{ names: number; same: boolean }>;
      expect(out).toHaveLength(2);
      for (const row of out) {
        expect(row.names).toBeGreaterThanOrEqual(4);
        expect(row).toMatchObject({ same: true, differ: [] });
      }
    },
    60_000,
  );

  /** Every executable of an install: the root's deprecated ones and their homes', by path. */
  const executables = () => {
    const at = (name: string, bin: string): string => {
      const dir = join(project, 'node_modules', name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        bin: Record<string, string>;
      };
      return join(dir, manifest.bin[bin]!);
    };
    return {
      proxy: at('@omcp/mcp-failure-proxy', 'mcp-failure-proxy'),
      kit: at('@omcp/mcp-failures', 'mcp-failures'),
      oldProxy: at(NAME, 'mcp-failure-proxy'),
      oldKit: at(NAME, 'mcp-failures'),
    };
  };

  it("runs every executable: the proxy's and the kit's, and the root's deprecated ones the same", async () => {
    expect(readdirSync(join(project, 'node_modules', '.bin'))).toEqual(
      expect.arrayContaining(['mcp-failure-proxy', 'mcp-failures']),
    );
    const bins = executables();
    const help = async (file: string) => {
      const result = await node(runtime, project, [file, '--help']);
      expect(result.code, `${file}\n${result.stderr}`).toBe(0);
      return result.stdout;
    };
    expect(await help(bins.proxy)).toMatch(/^Usage: mcp-failure-proxy /);
    expect(await help(bins.oldProxy)).toBe(await help(bins.proxy));
    expect(await help(bins.kit)).toMatch(/^Usage: mcp-failures /);
    expect(await help(bins.oldKit)).toBe(await help(bins.kit));
  }, 60_000);

  it.each([
    ['kit', 'proxy'],
    ['oldKit', 'oldProxy'],
  ] as const)(
    'checks the installed proxy (%s, %s) with its own vectors: PASS',
    async (kit, proxy) => {
      const bins = executables();
      const result = await node(
        runtime,
        project,
        [
          bins[kit],
          'check',
          'proxy',
          '--',
          runtime.node,
          bins[proxy],
          '--stdio',
          '--',
          '{upstream}',
        ],
        { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('PASS');
    },
    120_000,
  );
});

describe('the proxy and the kit installed without the root', () => {
  const runtime = runtimes()[0]!;
  let project: string;
  beforeAll(async () => {
    const proxy = pack(join(ROOT, 'packages/proxy'));
    const kit = pack(join(ROOT, 'packages/mcp-failures'));
    project = tempDir('omcp-without-root');
    writeFileSync(join(project, 'package.json'), '{ "name": "app", "private": true }\n');
    // The kit's own tarball, then the proxy's with the data model's (which both depend on).
    await npmInstall(runtime, project, [kit.tarball, ...proxy.install]);
  }, 400_000);

  it.each([
    ['mcp-failure-proxy', 1],
    ['mcp-failures', 2],
  ] as const)(
    '%s says in one line that the root is missing and how to install it',
    async (bin, code) => {
      expect(readdirSync(join(project, 'node_modules/@omcp'))).not.toContain('instrumentation-mcp');
      const result = await node(runtime, project, [
        join(project, 'node_modules/.bin', bin),
        '--help',
      ]);
      expect(result.code).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `${bin}: ${NAME} is not installed, and it runs on it: npm install '${NAME}@${versionOf('.')}'\n`,
      );
    },
    60_000,
  );
});
