/**
 * A Worker as Cloudflare's users build and run it, offline and without an account: a fresh
 * project made from a fixture's lock file with the packed tarball installed, bundled by
 * `wrangler deploy --dry-run` (wrangler 4.164 on Node.js 22, as users deploy it: the conditions
 * `workerd`, `worker`, `browser` and the `nodejs_compat` polyfills), then run on workerd by
 * miniflare 4 (Node.js 20), listening on 127.0.0.1. Both tools are pinned in
 * test/fixtures/workers/tools/.
 */
import { copyFileSync, cpSync, existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runtimeOf } from '../helpers/runtimes.js';
import { ROOT, run, tempDir } from '../observability/helpers.js';
import { npmInstall, runtimeEnv, type Packed } from '../packaging/install.js';

/** The fixture: the Worker, its caller, and their pinned dependencies. */
export const FIXTURE = join(ROOT, 'test', 'fixtures', 'workers');
const TOOLS = join(FIXTURE, 'tools', 'node_modules');

/** A file of the fixture's install; throws, saying what installs it, when it is missing. */
function installed(dir: string, ...path: string[]): string {
  const file = join(dir, ...path);
  if (!existsSync(file))
    throw new Error(`${file} is missing: run node scripts/install-fixtures.mjs (npm test does)`);
  return file;
}

/**
 * A fresh project holding `files` of the fixture: its dependencies as `npm ci` installed them
 * from its lock file (copied from the fixture's install), then the tarball added by npm, as a
 * user adds it.
 */
export async function workerProject(packed: Packed, files: readonly string[]): Promise<string> {
  const dir = tempDir('omcp-workers');
  for (const file of ['package.json', 'package-lock.json', ...files])
    copyFileSync(join(FIXTURE, file), join(dir, file));
  cpSync(installed(FIXTURE, 'node_modules'), join(dir, 'node_modules'), { recursive: true });
  await npmInstall(runtimeOf(20), dir, ['--prefer-offline', ...packed.install]);
  return dir;
}

/**
 * Bundles the project's Worker with `wrangler deploy --dry-run` (its `wrangler.json`, or
 * `config`); resolves with the bundle's path, or throws with wrangler's output.
 */
export async function bundleWorker(project: string, config = 'wrangler.json'): Promise<string> {
  const node22 = runtimeOf(22);
  const wrangler = installed(TOOLS, 'wrangler', 'bin', 'wrangler.js');
  const outdir = join(project, 'bundle');
  const result = await run(
    node22.node,
    [wrangler, 'deploy', '--dry-run', '--config', config, '--outdir', outdir],
    {
      cwd: project,
      // No account, no metrics, no update check: nothing leaves the machine.
      env: runtimeEnv(node22, {
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_LOG: 'warn',
        CLOUDFLARE_API_TOKEN: '',
        CI: '1',
      }),
      timeoutMs: 60_000,
    },
  );
  // wrangler names the bundle after the Worker's module (`main`).
  const { main } = JSON.parse(readFileSync(join(project, config), 'utf8')) as { main: string };
  const bundle = join(outdir, `${basename(main, extname(main))}.js`);
  if (result.code !== 0 || !existsSync(bundle))
    throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`);
  return bundle;
}

/** What the tests use of miniflare 4's `Miniflare`. */
interface MiniflareLike {
  ready: Promise<URL>;
  dispose(): Promise<void>;
}
type MiniflareClass = new (options: Record<string, unknown>) => MiniflareLike;

/** A Worker running on workerd: its URL on 127.0.0.1, and a way to stop it. */
export interface RunningWorker {
  url: URL;
  stop(): Promise<void>;
}

/**
 * Runs `bundle` on workerd (miniflare 4, with the compatibility date, flags and Durable Object
 * bindings of the project's wrangler configuration) with `bindings` as its environment's text
 * bindings.
 */
export async function startWorker(
  bundle: string,
  wranglerConfig: string,
  bindings: Record<string, string>,
): Promise<RunningWorker> {
  const config = JSON.parse(readFileSync(wranglerConfig, 'utf8')) as {
    compatibility_date: string;
    compatibility_flags?: string[];
    durable_objects?: { bindings: Array<{ name: string; class_name: string }> };
  };
  // Each Durable Object class of the configuration, bound as it names it, on SQLite storage.
  const durableObjects = Object.fromEntries(
    (config.durable_objects?.bindings ?? []).map((b) => [
      b.name,
      { className: b.class_name, useSQLite: true },
    ]),
  );
  const entry = installed(TOOLS, 'miniflare', 'dist', 'src', 'index.js');
  const { Miniflare } = (await import(pathToFileURL(entry).href)) as { Miniflare: MiniflareClass };
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: bundle }],
    // Module names are relative to this folder (the bundle is outside the test's working folder).
    modulesRoot: dirname(bundle),
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags ?? [],
    bindings,
    durableObjects,
    host: '127.0.0.1',
    port: 0,
  });
  try {
    return { url: await mf.ready, stop: () => mf.dispose() };
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw error;
  }
}
