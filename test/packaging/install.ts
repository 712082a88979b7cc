/**
 * The package as users get it: `npm pack`, then a real `npm install` of the tarball into a fresh
 * project, run by the npm of the Node.js line under test (so npm picks versions for that Node, as
 * it does for users). Nothing links into this repository's node_modules: what npm resolves,
 * nests or leaves out is what the tests see.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, run, tempDir, type RunResult } from '../observability/helpers.js';
import type { Runtime } from '../helpers/runtimes.js';
import { workspaceDependencies } from '../../scripts/workspace.mjs';

export const NAME = '@omcp/instrumentation-mcp';

/** The tarball and the files it holds. */
export interface Packed {
  tarball: string;
  files: string[];
  /** Bytes of the tarball as published, and of its files once unpacked (npm's own figures). */
  size: number;
  unpackedSize: number;
  /**
   * What to hand `npm install` for this package: its tarball, then those of the workspace
   * packages it depends on (the data model, the proxy, the kit), which the registry would serve;
   * npm places each once, as it would from the registry.
   */
  install: string[];
}

/**
 * The package in `dir` (this repository's root, or one of packages/) as packed once for the whole
 * run by the global setup (test/setup/pack.ts), with the workspace packages it depends on; the
 * file list is what npm would publish.
 */
export function pack(dir: string = ROOT): Packed {
  const own = packOne(dir);
  const dependencies = workspaceDependencies(dir, ROOT).map(({ dir: d }) => packOne(d).tarball);
  return { ...own, install: [own.tarball, ...dependencies] };
}

/** The run's tarball of the package in `dir`, packed now when no global setup packed it. */
function packOne(dir: string): Omit<Packed, 'install'> {
  const packs = process.env[PACKS_ENV];
  const name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string })
    .name;
  const record = packs === undefined ? undefined : join(packs, `${name.replace('/', '+')}.json`);
  if (record !== undefined && existsSync(record))
    return JSON.parse(readFileSync(record, 'utf8')) as Omit<Packed, 'install'>;
  return packInto(dir, tempDir('omcp-pack'));
}

/** The variable that names the folder of the run's tarballs and their records. */
export const PACKS_ENV = 'OMCP_TEST_PACKS';

/**
 * Packs the package in `dir` (already built) into `into`, and writes its record beside the
 * tarball (`<name>.json`, `/` as `+`).
 */
export function packInto(dir: string, into: string): Omit<Packed, 'install'> {
  // --ignore-scripts: the build has run (pretest), and prepack would rebuild under running tests.
  const out = execFileSync(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', into],
    { cwd: dir, encoding: 'utf8' },
  );
  const [info] = JSON.parse(out) as Array<{
    name: string;
    filename: string;
    files: Array<{ path: string }>;
    size: number;
    unpackedSize: number;
  }>;
  const packed = {
    tarball: join(into, info!.filename),
    files: info!.files.map((f) => f.path),
    size: info!.size,
    unpackedSize: info!.unpackedSize,
  };
  writeFileSync(join(into, `${info!.name.replace('/', '+')}.json`), JSON.stringify(packed));
  return packed;
}

/**
 * The environment a child of `runtime` gets: this process's (certificates, proxies and the like
 * that npm needs to reach its registry), less what `npm test` and vitest add, with the runtime's
 * node first on PATH.
 */
export function runtimeEnv(runtime: Runtime, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|NODE_OPTIONS$|INIT_CWD$|OTEL_)/i.test(key)) continue;
    env[key] = value;
  }
  env.PATH = `${dirname(runtime.node)}:${process.env.PATH ?? ''}`;
  return { ...env, ...extra };
}

/** Runs `npm install` with the runtime's node; throws with npm's output when it fails. */
export async function npmInstall(
  runtime: Runtime,
  cwd: string,
  args: readonly string[],
): Promise<RunResult> {
  const result = await run('npm', ['install', '--no-audit', '--no-fund', ...args], {
    cwd,
    env: runtimeEnv(runtime),
    timeoutMs: 300_000,
  });
  if (result.code !== 0)
    throw new Error(`npm install ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * A tsconfig.json that type-checks `files` as a user's strict TypeScript project would
 * (nodenext, no emit), with the `types` packages it names.
 */
export function userTsconfig(files: readonly string[], types?: readonly string[]): string {
  return JSON.stringify({
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      ...(types === undefined ? {} : { types }),
    },
    files,
  });
}

/**
 * A fresh project: the application's own dependencies installed first (`app`), then this
 * package's tarball added, as a user adds it to an existing project.
 */
export async function newProject(
  runtime: Runtime,
  packed: Packed,
  app: readonly string[],
  options: { prefix?: string; omitOptional?: boolean } = {},
): Promise<string> {
  const dir = tempDir(options.prefix ?? `omcp-node${runtime.major}`);
  writeFileSync(join(dir, 'package.json'), '{ "name": "consumer", "private": true }\n');
  const omit = options.omitOptional === true ? ['--omit=optional'] : [];
  if (app.length > 0) await npmInstall(runtime, dir, [...omit, ...app]);
  await npmInstall(runtime, dir, [...omit, ...packed.install]);
  return dir;
}

/** Every installed copy of package `name` in a project: `version` at `path`. */
export function copiesOf(project: string, name: string): Array<{ version: string; path: string }> {
  const out: Array<{ version: string; path: string }> = [];
  const walk = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((p) => `${entry}/${p}`)
        : [entry];
      for (const pkg of names) {
        const dir = join(modules, pkg);
        const manifest = join(dir, 'package.json');
        if (pkg === name && existsSync(manifest))
          out.push({
            version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version,
            path: dir,
          });
        walk(join(dir, 'node_modules'));
      }
    }
  };
  walk(join(project, 'node_modules'));
  return out;
}

/** Runs the runtime's node in a project. */
export function node(
  runtime: Runtime,
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<RunResult> {
  return run(runtime.node, args, { cwd, env: runtimeEnv(runtime, env), timeoutMs: 60_000 });
}
