// `npm run bench:compare -- A B`: is build B slower than build A? Both builds run in ONE process
// (bench/lib/inprocess.mjs, the in-process section's code), each instrumenting its own in-memory
// client/server pair in manual mode (`instrumentClient` / `instrumentServer` patch those objects,
// not the SDK's prototypes, so the two builds cannot step on each other), beside an uninstrumented
// pair, against one copy of the SDK and of OpenTelemetry. Every round runs a short run of calls
// through each pair in a shuffled order, so the builds alternate run by run and share every burst
// of the machine's noise; one process per build would not do: two processes of the same code
// settle on JIT and heap states further apart than a 5 % change. Several such processes, the
// build loaded first and the order the pairs connect in changing between them. B / A is 1 + the
// median of B's per-round differences to A over A's overhead (the median of A's per-round
// differences to the baseline), with a 95 % interval that resamples processes, then rounds; it
// reads REGRESSION, SAME or FASTER at ±5 % (bench/lib/verdicts.mjs), or UNCLEAR.
//
// `npm run bench:compare` alone builds this tree and holds it to the recorded baseline
// (bench/baseline.json); with one build named, that build against the baseline.
// A and B: a commit (anything `git rev-parse` takes: exported with `git archive` into
// /tmp/omcp-compare/<sha> with this tree's node_modules linked in, its ES modules built there with
// its own compiler settings, kept for the next run), `worktree` (this tree's sources, built now)
// or `dist` (this tree's dist/ as it was last built). Each build's dist/esm is then copied under
// bench/.compare/, so that both resolve every dependency to this tree's files and each is a module
// instance of its own even when A and B are the same build.
//
// Settings: COMPARE_NODE_ARGS (Node options of the measuring processes), COMPARE_PROCESSES (8), COMPARE_CALLS (calls per pair and scenario in each process,
// 4000), COMPARE_WARMUP (calls per pair before them; as many, up to 3000), COMPARE_MAX_PROCESSES
// (12: while a reading is UNCLEAR, two more processes at a time up to this many). COMPARE_SLOWDOWN
// (the smoke test's): B's pair burns this fraction of its own overhead in every call, a real
// slowdown the comparison must find. Exit code 0 on SAME or FASTER, 1 on REGRESSION, 3 on UNCLEAR,
// 2 when a build cannot be made or measured. The full record goes to
// bench/results/runs/compare.json (not committed).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyWorkspaceDependencies } from '../scripts/workspace-copy.mjs';
import { changeInterval, median } from './lib/stats.mjs';
import { CHANGE_TOLERANCE, changeVerdict, overallChange } from './lib/verdicts.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const root = here('..');
const CACHE = '/tmp/omcp-compare';
const processes = Math.max(2, Number(process.env.COMPARE_PROCESSES ?? '8'));
const calls = String(Math.max(200, Number(process.env.COMPARE_CALLS ?? '4000')));
const warmup = String(Math.min(3000, Number(process.env.COMPARE_WARMUP ?? calls)));
const maxProcesses = Math.max(processes, Number(process.env.COMPARE_MAX_PROCESSES ?? '12'));
const slowdown = process.env.COMPARE_SLOWDOWN;
/** Node options of the measuring processes (COMPARE_NODE_ARGS), e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`. */
const nodeArgs = process.env.COMPARE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

/** Stops the run with one line saying what to do. */
function stop(message) {
  console.error(`bench:compare: ${message}`);
  process.exit(2);
}

const git = (...args) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Builds `spec` (a commit, `worktree` or `dist`); returns its dist/ and how to name it. */
function buildOf(spec) {
  if (spec === 'dist') {
    if (!existsSync(`${root}/dist/esm/index.js`))
      stop('dist/ is not built: run `npm run build`, or name `worktree` to build it now');
    return { dist: `${root}/dist`, name: 'dist (this tree, as last built)' };
  }
  if (spec === 'worktree') {
    const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) stop('`npm run build` failed in this tree');
    return { dist: `${root}/dist`, name: 'worktree (this tree, built now)' };
  }
  let sha;
  try {
    sha = git('rev-parse', '--verify', '--quiet', `${spec}^{commit}`).trim();
  } catch {
    stop(`${spec} is not a commit of this repository, nor \`worktree\` or \`dist\``);
  }
  const dir = `${CACHE}/${sha}`;
  if (!existsSync(`${dir}/dist/esm/index.js`)) {
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    const tar = spawnSync('sh', ['-c', `git archive ${sha} | tar -x -C '${partial}'`], {
      cwd: root,
      stdio: 'inherit',
    });
    if (tar.status !== 0) stop(`could not export ${sha} with git archive`);
    // The ES modules half of the build (all the comparison loads), with the commit's own
    // compiler settings and this tree's dependencies.
    symlinkSync(`${root}/node_modules`, `${partial}/node_modules`);
    console.log(`building ${spec} (${sha.slice(0, 12)}) in ${dir}...`);
    const tsc = `${root}/node_modules/typescript/bin/tsc`;
    // A commit with the data-model package builds its ES modules half first, beside its own.
    const model = `${partial}/packages/tool-failure`;
    // Its ES modules project: tsconfig.build.json since each package builds itself (tsc -b).
    const modelProject = ['tsconfig.build.json', 'tsconfig.json']
      .map((name) => `${model}/${name}`)
      .find((file) => existsSync(file));
    if (modelProject !== undefined) {
      const made = spawnSync(
        process.execPath,
        [tsc, '-p', modelProject, '--outDir', `${model}/dist/esm`],
        { cwd: partial, stdio: 'inherit' },
      );
      if (made.status !== 0)
        stop(`${spec} (${sha.slice(0, 12)}): its data-model package does not build`);
      writeFileSync(`${model}/dist/esm/package.json`, '{ "type": "module" }\n');
    }
    const built = spawnSync(
      process.execPath,
      [tsc, '-p', 'tsconfig.build.json', '--outDir', 'dist/esm'],
      { cwd: partial, stdio: 'inherit' },
    );
    if (built.status !== 0 || !existsSync(`${partial}/dist/esm/index.js`))
      stop(`${spec} (${sha.slice(0, 12)}) does not build: see the compiler's output above`);
    writeFileSync(`${partial}/dist/esm/package.json`, '{ "type": "module" }\n');
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  }
  const subject = git('log', '-1', '--format=%h %s', sha).trim();
  return { dist: `${dir}/dist`, name: `${spec} (${subject.slice(0, 70)})` };
}

/**
 * Copies `dist`'s ES modules to `dir`, where they resolve their dependencies from this tree; the
 * workspace packages the build's root depends on (the data model, for a checkout that has it) go
 * to `dir`/node_modules, found before this tree's, so each build runs its own.
 */
function stage(dist, dir) {
  mkdirSync(dir, { recursive: true });
  cpSync(`${dist}/esm`, `${dir}/esm`, { recursive: true });
  copyWorkspaceDependencies(dir, dirname(dist));
}

/** Runs measuring process `p`; returns its record. */
function measureOne(dirs, p) {
  process.stdout.write(`process ${p + 1}/${Math.max(processes, p + 1)}\r`);
  const run = spawnSync(process.execPath, [...nodeArgs, here('./lib/inprocess.mjs')], {
    cwd: here('.'),
    env: {
      ...process.env,
      BENCH_INPROC_VARIANTS: 'baseline',
      // The build loaded first alternates, and each two processes connect the pairs from another
      // one: which module instance comes first, or sits where, must not count.
      BENCH_INPROC_DISTS: p % 2 === 0 ? `a=${dirs.a},b=${dirs.b}` : `b=${dirs.b},a=${dirs.a}`,
      BENCH_INPROC_ORDER: String(Math.floor(p / 2) % 3),
      BENCH_INPROC_CALLS: calls,
      BENCH_INPROC_WARMUP: warmup,
      BENCH_INPROC_SLOWDOWN: slowdown === undefined ? '' : `b=${slowdown}`,
    },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (run.status !== 0)
    throw new Error(
      `a measuring process failed (does each build export McpInstrumentation with instrumentClient?): ${run.stderr.trim().split('\n').slice(-3).join(' ')}`,
    );
  return JSON.parse(run.stdout.trim().split('\n').pop());
}

/**
 * Runs the measuring processes; while a reading is UNCLEAR after them, two more at a time (one of
 * each load order) up to COMPARE_MAX_PROCESSES. Returns their records.
 */
function measure(dirs) {
  const runs = [];
  while (runs.length < processes) runs.push(measureOne(dirs, runs.length));
  while (runs.length + 2 <= maxProcesses && readingOf(runs) === 'UNCLEAR')
    for (let k = 0; k < 2; k++) runs.push(measureOne(dirs, runs.length));
  return runs;
}

/** B / A for one scenario, from every process's rounds end to end. */
function scenarioOf(runs, scenario) {
  const flat = (v) => runs.flatMap((r) => r[scenario][v]);
  const [a, b, base] = [flat('a'), flat('b'), flat('baseline')];
  const over = (x) => median(x.map((t, i) => t - base[i]));
  const interval = changeInterval(b, a, base, runs.length);
  return {
    baselineNs: median(base),
    aNs: over(a),
    bNs: over(b),
    ratio: 1 + median(b.map((t, i) => t - a[i])) / over(a),
    interval,
    reading: changeVerdict(interval),
    burnNs: slowdown === undefined ? undefined : median(runs.map((r) => r.burns[scenario])),
  };
}

/** The reading of both scenarios together. */
function readingOf(runs) {
  return overallChange(['ok', 'fail'].map((s) => scenarioOf(runs, s).reading));
}

/** The baseline every change is held to (bench/baseline.json), not the previous session's head. */
const BASELINE = JSON.parse(readFileSync(here('./baseline.json'), 'utf8')).commit;
// No build named: this tree, built now, against the baseline; one named: that build against it.
const args = process.argv.slice(2);
if (args.length > 2)
  stop('usage: npm run bench:compare [-- [<A>] <B>], each a commit, `worktree` or `dist`');
const [specA, specB] = args.length === 2 ? args : [BASELINE, args[0] ?? 'worktree'];
const started = Date.now();
const builds = { a: buildOf(specA), b: buildOf(specB) };
const staging = here(`./.compare/${process.pid}`);
const dirs = { a: `${staging}/a`, b: `${staging}/b` };
// Stopped part way (Ctrl-C, a test's timeout): the copies go all the same.
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    rmSync(staging, { recursive: true, force: true });
    process.exit(130);
  });
const loadBefore = os.loadavg();
let runs;
try {
  for (const k of ['a', 'b']) stage(builds[k].dist, dirs[k]);
  runs = measure(dirs);
} catch (e) {
  rmSync(staging, { recursive: true, force: true });
  stop(e.message);
}
rmSync(staging, { recursive: true, force: true });
const loadAfter = os.loadavg();
const us = (ns) => (ns / 1000).toFixed(1);
const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
const scenarios = { ok: scenarioOf(runs, 'ok'), fail: scenarioOf(runs, 'fail') };
const reading = readingOf(runs);
const seconds = Math.round((Date.now() - started) / 1000);

console.log(`A = ${builds.a.name}`);
console.log(`B = ${builds.b.name}`);
console.log(
  `${runs.length} processes of ${calls} calls per pair and scenario, in runs of ${runs[0].block}, the pairs in a shuffled order each round; overhead = median of per-round differences to the baseline; load average ${load(loadBefore)} before, ${load(loadAfter)} after${slowdown === undefined ? '' : `; B slowed by ${slowdown} of its overhead (COMPARE_SLOWDOWN)`}`,
);
console.log('');
console.log('scenario      baseline µs   A +µs   B +µs   B / A  (95% interval)  reading');
for (const [name, s] of Object.entries(scenarios))
  console.log(
    `${`memory/${name}`.padEnd(14)}${us(s.baselineNs).padStart(11)}${us(s.aNs).padStart(8)}${us(s.bNs).padStart(8)}${s.ratio.toFixed(3).padStart(8)}  (${s.interval[0].toFixed(3)}–${s.interval[1].toFixed(3)})   ${s.reading}${s.burnNs === undefined ? '' : `  (B burnt ${us(s.burnNs)} µs a call)`}`,
  );
console.log('');
console.log(`compare: ${reading} (B against A at ±${CHANGE_TOLERANCE * 100} %, ${seconds} s)`);
mkdirSync(here('./results/runs'), { recursive: true });
writeFileSync(
  here('./results/runs/compare.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      a: builds.a,
      b: builds.b,
      processes: runs.length,
      calls: Number(calls),
      slowdown,
      loadAverage: { before: loadBefore, after: loadAfter },
      seconds,
      reading,
      scenarios,
      runs,
    },
    null,
    1,
  )}\n`,
);
process.exitCode = { SAME: 0, FASTER: 0, REGRESSION: 1, UNCLEAR: 3 }[reading];
