// Every variant in ONE process, in short runs of calls side by side: the per-call cost of each
// variant's own code, free of what separates worker processes (the state a process's JIT and
// heap settle in, the neighbours of its rounds). This package runs in manual mode here
// (`instrumentClient` / `instrumentServer` on its own pair: the same patches as auto mode,
// applied to objects instead of prototypes), so that the uninstrumented pair of the same
// process stays uninstrumented. In-memory transport; each round makes a short run of calls
// through every pair, in a shuffled order; the figure is the median wall time of each run's
// calls, which on one thread with nothing else to wait for is CPU time, with a collector's pause
// left to the calls it lands on. Prints one JSON line: per scenario and variant, the median call
// of each run, round by round; bench/run.mjs pairs them with the baseline's of the same round
// and combines the processes.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpInstrumentation } from '../../dist/esm/index.js';
import { missionFloor } from './mission-floor.mjs';
import { beforeProblem, manualVariant } from './variants.mjs';
import { setupOtel } from './otel.mjs';
import { connectInMemory } from './server.mjs';
import { slowdownSpec, slowedVariant } from './slowdown.mjs';

const otel = setupOtel();
const manual = (config, Instrumentation = McpInstrumentation) =>
  manualVariant(Instrumentation, config);
const variants = {
  baseline: { client: (c) => c, server: (s) => s, tool: (_n, cb) => cb },
  'mission-floor': missionFloor(),
  'mission-floor-tap': missionFloor({ at: 'transport' }),
  omcp: manual(),
  // A second pair of exactly the same: how far two pairs of the same code sit apart here.
  'omcp-again': manual(),
  'omcp-noobjects': manual({ addFailureObjects: false }),
};
// BENCH_BEFORE_DIST: another build of this package as one more pair of the same process, so a
// change is priced against the build before it call by call (`omcp` / `omcp-before`).
if (process.env.BENCH_BEFORE_DIST) {
  const problem = beforeProblem();
  if (problem !== undefined) {
    console.error(`bench: ${problem}`);
    process.exit(2);
  }
  const url = pathToFileURL(join(process.env.BENCH_BEFORE_DIST, 'esm', 'index.js'));
  variants['omcp-before'] = manual(undefined, (await import(url.href)).McpInstrumentation);
}
// BENCH_INPROC_VARIANTS: only these of the pairs above (bench/knockouts.mjs runs baseline,
// mission-floor and omcp). BENCH_INPROC_DISTS (`name=dir,...`): more builds of this package, one
// pair each (bench/knockouts.mjs: copies of dist/ with one part taken out each).
const keep = process.env.BENCH_INPROC_VARIANTS?.split(',');
if (keep !== undefined)
  for (const v of Object.keys(variants)) if (!keep.includes(v)) delete variants[v];
for (const spec of (process.env.BENCH_INPROC_DISTS ?? '').split(',').filter(Boolean)) {
  const [name, dir] = spec.split('=');
  const url = pathToFileURL(join(dir, 'esm', 'index.js'));
  variants[name] = manual(undefined, (await import(url.href)).McpInstrumentation);
}
// BENCH_INPROC_SLOWDOWN (`name=fraction`, the smoke test of bench/compare.mjs): that pair burns
// CPU in each call, the fraction of its own overhead measured after the warmup.
const slowdown = slowdownSpec(process.env.BENCH_INPROC_SLOWDOWN);
let slowed;
if (slowdown !== undefined) {
  if (variants[slowdown.name] === undefined || variants.baseline === undefined) {
    console.error(`bench: BENCH_INPROC_SLOWDOWN names ${slowdown.name}, not a pair of this run`);
    process.exit(2);
  }
  slowed = slowedVariant(variants[slowdown.name]);
  variants[slowdown.name] = slowed.variant;
}
const names = Object.keys(variants);
// The pairs are connected (and their objects made) in an order that rotates with
// BENCH_INPROC_ORDER, and the shuffle seed with it, so that no variant owes its figure to where it
// stands in one process: each process of a run starts from another variant.
const shift = Number(process.env.BENCH_INPROC_ORDER ?? '0') % names.length;
const clients = {};
for (const v of names.map((_, i) => names[(i + shift) % names.length]))
  clients[v] = await connectInMemory(variants[v], 'bench-client');

const N = Number(process.env.BENCH_INPROC_CALLS ?? '10000');
/** Calls through every pair before the measured rounds (BENCH_INPROC_WARMUP). */
const WARMUP = Number(process.env.BENCH_INPROC_WARMUP ?? Math.min(3000, N));
/**
 * Calls of one variant in a row. A call made right after another variant's pays for the switch
 * (its code and data are no longer in the caches), and one call at a time would charge that to
 * whichever variant comes after a foreign one; in runs of BLOCK the median call of each run is
 * past the switch, and the runs come in a shuffled order every round.
 */
const BLOCK = Math.max(1, Math.min(25, Math.floor(N / 20)));

/** The median of `rounds` runs' differences of the median call of `v` to the baseline's (ns). */
async function overheadOf(call, v, rounds) {
  const run = new Float64Array(BLOCK);
  const medianCall = async (x) => {
    for (let k = 0; k < BLOCK; k++) {
      const start = process.hrtime.bigint();
      await call(x);
      run[k] = Number(process.hrtime.bigint() - start);
    }
    return run.sort()[BLOCK >> 1];
  };
  // Every pair runs in each round, as in the measured rounds: a call's cost depends on what ran
  // before it (caches), and a burn sized with only the baseline between fell short of the mark.
  const d = [];
  for (let r = 0; r < rounds; r++) {
    const medians = {};
    for (const x of r % 2 === 0 ? names : [...names].reverse()) medians[x] = await medianCall(x);
    d.push(medians[v] - medians.baseline);
  }
  return d.sort((a, b) => a - b)[d.length >> 1];
}

/** Per variant, the median call of each of its runs (ns), round by round. */
async function measure(tool) {
  const call = (v) => clients[v].callTool({ name: tool, arguments: {} });
  for (let i = 0; i < WARMUP; i++) for (const v of names) await call(v);
  if (slowed !== undefined) {
    slowed.state.ns = 0;
    slowed.state.ns = slowdown.fraction * (await overheadOf(call, slowdown.name, 24));
    burns[tool] = slowed.state.ns;
  }
  let seed = 777 + shift;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const blocks = Object.fromEntries(names.map((v) => [v, []]));
  const run = new Float64Array(BLOCK);
  const order = [...names];
  for (let round = 0; round < Math.floor(N / BLOCK); round++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const v of order) {
      for (let k = 0; k < BLOCK; k++) {
        const start = process.hrtime.bigint();
        const r = await call(v);
        run[k] = Number(process.hrtime.bigint() - start);
        if ((r.isError === true) !== (tool === 'fail'))
          throw new Error(`unexpected result of ${tool}`);
      }
      blocks[v].push(run.sort()[BLOCK >> 1]);
    }
    // Export is part of the cost, outside the timed calls: spans and records queued by the
    // calls of every variant alike.
    if (round % 20 === 19) {
      await otel.tracerProvider.forceFlush();
      await otel.loggerProvider.forceFlush();
    }
  }
  return blocks;
}

/** Per scenario, the CPU burnt in each call of the slowed pair (ns). */
const burns = {};
const out = { calls: N, block: BLOCK, variants: names, order: shift, burns };
for (const tool of ['ok', 'fail']) out[tool] = await measure(tool);
console.log(JSON.stringify(out));
process.exit(0);
