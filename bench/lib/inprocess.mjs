// Every variant in ONE process, calls interleaved one by one: the per-call cost of each
// variant's own code, free of what separates worker processes (the state a process's JIT and
// heap settle in, the neighbours of its rounds). This package runs in manual mode here
// (`instrumentClient` / `instrumentServer` on its own pair: the same patches as auto mode,
// applied to objects instead of prototypes), so that the uninstrumented pair of the same
// process stays uninstrumented. In-memory transport; each iteration makes one call through every
// pair, in an order that rotates; the figure is the median of the per-call wall times, which on
// one thread with nothing else to wait for is CPU time, with a collector's pause left to the
// calls it lands on. Prints one JSON line.
import { McpInstrumentation } from '../../dist/esm/index.js';
import { missionFloor } from './mission-floor.mjs';
import { setupOtel } from './otel.mjs';
import { connectInMemory } from './server.mjs';

const otel = setupOtel();
const manual = (config) => {
  const instrumentation = new McpInstrumentation(config);
  return {
    client: (c) => instrumentation.instrumentClient(c),
    server: (s) => instrumentation.instrumentServer(s),
    tool: (_n, cb) => cb,
  };
};
const variants = {
  baseline: { client: (c) => c, server: (s) => s, tool: (_n, cb) => cb },
  'mission-floor': missionFloor(),
  'mission-floor-tap': missionFloor({ at: 'transport' }),
  omcp: manual(),
  // A second pair of exactly the same: how far two pairs of the same code sit apart here.
  'omcp-again': manual(),
  'omcp-noobjects': manual({ addFailureObjects: false }),
};
const names = Object.keys(variants);
const clients = {};
for (const v of names) clients[v] = await connectInMemory(variants[v], 'bench-client');

const N = Number(process.env.BENCH_INPROC_CALLS ?? '30000');
const WARMUP = Math.min(3000, N);
/** Iterations per bootstrap block: neighbouring calls share the machine's moment. */
const BLOCK = Math.max(1, Math.min(250, Math.floor(N / 20)));

async function measure(tool) {
  const times = Object.fromEntries(names.map((v) => [v, new Float64Array(N)]));
  const call = (v) => clients[v].callTool({ name: tool, arguments: {} });
  for (let i = 0; i < WARMUP; i++) for (const v of names) await call(v);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < names.length; j++) {
      const v = names[(i + j) % names.length];
      const start = process.hrtime.bigint();
      const r = await call(v);
      times[v][i] = Number(process.hrtime.bigint() - start);
      if ((r.isError === true) !== (tool === 'fail'))
        throw new Error(`unexpected result of ${tool}`);
    }
    // Export is part of the cost, outside the timed calls: spans and records queued by the
    // calls of every variant alike.
    if (i % 500 === 499) {
      await otel.tracerProvider.forceFlush();
      await otel.loggerProvider.forceFlush();
    }
  }
  return times;
}

function median(xs) {
  const s = Float64Array.from(xs).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Indices of `blocks` drawn with replacement, each standing for BLOCK consecutive iterations. */
function resample(rnd, blocks) {
  const idx = new Uint32Array(blocks * BLOCK);
  for (let b = 0; b < blocks; b++) {
    const from = Math.floor(rnd() * blocks) * BLOCK;
    for (let k = 0; k < BLOCK; k++) idx[b * BLOCK + k] = from + k;
  }
  return idx;
}

/**
 * Per variant: the median call, its overhead over the baseline's median call, and the ratio of
 * that overhead to the mission floor's with a 95 % block-bootstrap interval (fixed seed); the
 * ratio of `omcp-again` (a second pair of the same code) to `omcp` likewise.
 */
function summarise(times) {
  const blocks = Math.floor(N / BLOCK);
  let seed = 4242;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const pick = (xs, idx) => Float64Array.from(idx, (i) => xs[i]);
  const ratios = { mission: Object.fromEntries(names.map((v) => [v, []])), again: [] };
  for (let k = 0; k < 400; k++) {
    const idx = resample(rnd, blocks);
    const m = Object.fromEntries(names.map((v) => [v, median(pick(times[v], idx))]));
    const over = (v) => m[v] - m.baseline;
    for (const v of names) ratios.mission[v].push(over(v) / over('mission-floor'));
    ratios.again.push(over('omcp-again') / over('omcp'));
  }
  const interval = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return [s[Math.floor(0.025 * s.length)], s[Math.floor(0.975 * s.length)]];
  };
  const base = median(times.baseline);
  const missionOver = median(times['mission-floor']) - base;
  const rows = {};
  for (const v of names) {
    const medianNs = median(times[v]);
    rows[v] = { medianNs, overheadNs: medianNs - base };
    if (v !== 'baseline') {
      rows[v].ratioToMission = rows[v].overheadNs / missionOver;
      rows[v].missionInterval = interval(ratios.mission[v]);
    }
  }
  return {
    rows,
    againToOmcp: rows['omcp-again'].overheadNs / rows.omcp.overheadNs,
    againInterval: interval(ratios.again),
  };
}

const out = { calls: N, block: BLOCK, variants: names };
for (const tool of ['ok', 'fail']) out[tool] = summarise(await measure(tool));
console.log(JSON.stringify(out));
process.exit(0);
