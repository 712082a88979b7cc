/**
 * The grid of installs users make: a Node.js line, the application's OpenTelemetry stack, the
 * package manager, and whether this package is added in the same install or after. Each cell is
 * installed once into a cache folder keyed by the cell and the packed tarballs' contents, and
 * shared by every test file (and every rerun) that asks for it; a second asker waits for the
 * first's install instead of making its own.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { run, type RunResult } from '../observability/helpers.js';
import { pnpmScript, runtimeOf, type Runtime } from '../helpers/runtimes.js';
import { npmInstall, runtimeEnv, type Packed } from './install.js';
import { MCP_SDK, STACKS } from '../../scripts/otel-stacks.mjs';

// What each application has before (or while) this package is added, and its MCP SDK.
export { MCP_SDK, STACKS };

/** One install. */
export interface Cell {
  node: Runtime['major'];
  stack: keyof typeof STACKS;
  pm: 'npm' | 'pnpm';
  /** `together`: one install of everything; `after`: the application's packages, then this one. */
  order: 'together' | 'after';
}

export function cellName(cell: Cell): string {
  return `Node.js ${cell.node}, ${cell.stack}, ${cell.pm}, ${cell.order}`;
}

/** An installed cell: its folder and what the package manager printed. */
export interface CellProject {
  dir: string;
  runtime: Runtime;
  /** The package manager's output of every install step. */
  log: string;
}

const CACHE = join(tmpdir(), 'omcp-cells');
/** An install that has held its lock this long has died: the next asker starts over. */
const STALE_MS = 15 * 60_000;
/** Cells installed this long ago belong to builds long gone (each build's tarballs key anew). */
const EXPIRED_MS = 24 * 60 * 60_000;
let pruned = false;

/** Removes the expired cells, once per process. */
function prune(): void {
  if (pruned) return;
  pruned = true;
  for (const entry of readdirSync(CACHE)) {
    const ready = statSync(join(CACHE, entry, '.cell-ready'), { throwIfNoEntry: false });
    if (ready !== undefined && Date.now() - ready.mtimeMs > EXPIRED_MS)
      rmSync(join(CACHE, entry), { recursive: true, force: true });
  }
}

function keyOf(cell: Cell, packed: Packed): string {
  const hash = createHash('sha256').update(JSON.stringify(cell));
  for (const tarball of packed.install) hash.update(readFileSync(tarball));
  return `node${cell.node}-${cell.stack.replace(/\W+/g, '')}-${cell.pm}-${cell.order}-${hash.digest('hex').slice(0, 12)}`;
}

/** The installed project of `cell`: from the cache, or installed now. */
export async function cellProject(cell: Cell, packed: Packed): Promise<CellProject> {
  const runtime = runtimeOf(cell.node);
  const dir = join(CACHE, keyOf(cell, packed));
  const ready = join(dir, '.cell-ready');
  const lock = `${dir}.lock`;
  mkdirSync(CACHE, { recursive: true });
  prune();
  for (const deadline = Date.now() + STALE_MS; ;) {
    if (existsSync(ready)) return { dir, runtime, log: readFileSync(ready, 'utf8') };
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > STALE_MS) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${cellName(cell)}: waited too long for ${lock}`);
      await sleep(2000);
    }
  }
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const log = await install(cell, runtime, dir, packed);
    writeFileSync(ready, log);
    return { dir, runtime, log };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The workspace package a tarball holds (`omcp-tool-failure-0.1.0.tgz`: `@omcp/tool-failure`). */
function nameOf(tarball: string): string {
  const match = /^omcp-(.+)-\d+\.\d+\.\d+[^/]*\.tgz$/.exec(basename(tarball));
  if (match === null) throw new Error(`not a packed @omcp tarball: ${tarball}`);
  return `@omcp/${match[1]}`;
}

async function install(cell: Cell, runtime: Runtime, dir: string, packed: Packed): Promise<string> {
  const app = [...STACKS[cell.stack], MCP_SDK];
  // The mixed tree is a pin npm refuses without this; that is how users get one.
  const flags = cell.stack === 'mixed' ? ['--legacy-peer-deps'] : [];
  const manifest: Record<string, unknown> = { name: 'consumer', private: true };
  if (cell.pm === 'pnpm') {
    // pnpm takes the other workspace packages from their tarballs, as the registry would serve them.
    const [, ...others] = packed.install;
    manifest.pnpm = {
      overrides: Object.fromEntries(others.map((t) => [nameOf(t), `file:${t}`])),
    };
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const steps =
    cell.order === 'together'
      ? [[...app, ...tarballs(cell, packed)]]
      : [app, tarballs(cell, packed)];
  const out: string[] = [];
  for (const step of steps) {
    const result =
      cell.pm === 'npm'
        ? await npmInstall(runtime, dir, [...flags, ...step])
        : await pnpmAdd(runtime, dir, step);
    out.push(result.stdout, result.stderr);
  }
  return out.join('\n');
}

function tarballs(cell: Cell, packed: Packed): string[] {
  // npm places each workspace tarball once; pnpm gets them through the overrides.
  return cell.pm === 'npm' ? packed.install : [packed.install[0]!];
}

async function pnpmAdd(runtime: Runtime, cwd: string, args: readonly string[]): Promise<RunResult> {
  const result = await run(runtime.node, [pnpmScript(), 'add', ...args], {
    cwd,
    env: runtimeEnv(runtime, { CI: 'true' }),
    timeoutMs: 300_000,
  });
  if (result.code !== 0)
    throw new Error(`pnpm add ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** `npm ls --all` of an npm cell: its exit code and the lines that name a problem. */
export async function npmLsProblems(project: CellProject): Promise<string[]> {
  const result = await run('npm', ['ls', '--all'], {
    cwd: project.dir,
    env: runtimeEnv(project.runtime),
    timeoutMs: 120_000,
  });
  const problems = `${result.stdout}\n${result.stderr}`
    .split('\n')
    .filter((line) => /\binvalid\b|UNMET DEPENDENCY|^npm (error|ERR!)/.test(line));
  return result.code === 0 ? problems : [`npm ls exited ${result.code}`, ...problems];
}

/** Installs `cells` with at most `parallel` at a time (the machine is shared). */
export async function installCells(
  cells: readonly Cell[],
  packed: Packed,
  parallel = 3,
): Promise<Map<Cell, CellProject>> {
  const out = new Map<Cell, CellProject>();
  const queue = [...cells];
  const worker = async (): Promise<void> => {
    for (let cell = queue.shift(); cell !== undefined; cell = queue.shift())
      out.set(cell, await cellProject(cell, packed));
  };
  await Promise.all(Array.from({ length: Math.min(parallel, cells.length) }, worker));
  return out;
}
