// `npm run bench`: one orchestrator process that drives one worker process per variant
// (prototype patches are global to a process), interleaving the variants round by round so
// drift on a noisy machine hits them alike, and prints one table with ratios and targets.
import { execFileSync, fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { BEFORE, EXPECTED, HTTP_VARIANTS, VARIANTS, beforeProblem } from './lib/variants.mjs';
import { blockOf, median, ratioInterval } from './lib/stats.mjs';
import { summaryJson } from './lib/summary.mjs';
import { verdictOf } from './lib/verdicts.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const scale = Number(process.env.BENCH_SCALE ?? '1');
// Many short rounds rather than a few long ones: on a shared machine the noise comes in bursts,
// and the median of many paired differences shrugs off the rounds a burst hit. The separate-process
// rows are context, not targets (CPU per call is judged in one process): 6 rounds in 2
// generations are enough for context and keep the whole run within 15 minutes.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '6');
/**
 * Generations of worker processes in the overhead section (BENCH_PROCESSES): each variant runs in
 * this many processes one after the other, each for its share of the rounds.
 */
const GENERATIONS = Math.max(1, Math.min(ROUNDS, Number(process.env.BENCH_PROCESSES ?? '2')));
/** The generation of processes that ran round `r` of `rounds`. */
const generationOf = (r, rounds) => blockOf(r, rounds, GENERATIONS);
/**
 * Node options for the overhead section's worker processes (BENCH_WORKER_NODE_ARGS), e.g. to
 * log what the JIT optimised and deoptimised in each (`--log-deopt --no-logfile-per-isolate --logfile=/tmp/w-%p.log`).
 */
const workerNodeArgs = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const N = {
  memory: Math.round(600 * scale),
  stdio: Math.round(300 * scale),
  http: Math.round(60 * scale),
};
/** Calls run before each measured round, as a fraction of the round's (BENCH_ROUND_WARMUP). */
const ROUND_WARMUP = Number(process.env.BENCH_ROUND_WARMUP ?? '0.1');
const WARMUP = {
  memory: Math.round(3000 * scale),
  stdio: Math.round(1000 * scale),
  http: Math.round(300 * scale),
};
const only = process.env.BENCH_ONLY?.split(',');
const want = (section) => only === undefined || only.includes(section);
const asked = process.env.BENCH_VARIANTS?.split(',');
/** [after, before] for each paired row asked for: this build against BENCH_BEFORE_DIST's. */
const pairs = (asked ?? []).filter((v) => v in BEFORE).map((v) => [BEFORE[v], v]);
if (pairs.length > 0 && beforeProblem() !== undefined) {
  console.error(`bench: ${beforeProblem()}`);
  process.exit(2);
}

function installPeers() {
  // Installed again when a package was added to bench/peers since the last install.
  const wanted = Object.keys(
    JSON.parse(readFileSync(here('./peers/package.json'), 'utf8')).dependencies,
  );
  if (wanted.every((name) => existsSync(here(`./peers/node_modules/${name}/package.json`)))) return;
  say('installing peer instrumentations into bench/peers (npm ci)...');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: here('./peers'),
    stdio: 'inherit',
  });
}

/** A worker process with request/response over IPC. */
function startWorker(script, env, execArgv = []) {
  const child = fork(here(script), { env: { ...process.env, ...env }, execArgv });
  let next = 0;
  const pending = new Map();
  let onReady;
  const ready = new Promise((resolve) => (onReady = resolve));
  child.on('message', (m) => {
    if (m.ready) return onReady();
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error));
    else p.resolve(m.result);
  });
  return {
    ready,
    send(msg) {
      return new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        child.send({ ...msg, id });
      });
    },
    exited: new Promise((resolve) => child.on('exit', resolve)),
  };
}

/** Runs a one-shot script; its last stdout line is JSON. */
function runScript(script, env = {}, execArgv = []) {
  const out = execFileSync(process.execPath, [...execArgv, here(script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = out.toString().trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/** The report: printed as it goes, and written beside the JSON at the end. */
const report = [];
function say(...parts) {
  const line = parts.join(' ');
  report.push(line);
  console.log(line);
}

const us = (ns) => (ns / 1000).toFixed(1);

const interval = ([low, high]) => `95% interval ${low.toFixed(2)}–${high.toFixed(2)}`;
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

const results = {
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  },
  versions: versions(),
  settings: { scale, rounds: ROUNDS, processes: GENERATIONS, n: N, warmup: WARMUP },
  loadAverage: { before: os.loadavg() },
  targets: [],
};
if (pairs.length > 0 || process.env.BENCH_BEFORE_DIST)
  results.beforeAfter = { dist: process.env.BENCH_BEFORE_DIST, overhead: {}, alloc: {} };

function versions() {
  const v = (dir, name) => {
    try {
      return JSON.parse(readFileSync(here(`${dir}/node_modules/${name}/package.json`), 'utf8'))
        .version;
    } catch {
      return undefined;
    }
  };
  return {
    '@omcp/instrumentation-mcp': JSON.parse(readFileSync(here('../package.json'), 'utf8')).version,
    '@modelcontextprotocol/sdk': v('..', '@modelcontextprotocol/sdk'),
    '@opentelemetry/sdk-trace-base': v('..', '@opentelemetry/sdk-trace-base'),
    '@opentelemetry/sdk-metrics': v('..', '@opentelemetry/sdk-metrics'),
    '@opentelemetry/exporter-trace-otlp-http': v('..', '@opentelemetry/exporter-trace-otlp-http'),
    'autotel-mcp-instrumentation': v('./peers', 'autotel-mcp-instrumentation'),
    autotel: v('./peers', 'autotel'),
    '@traceloop/instrumentation-mcp': v('./peers', '@traceloop/instrumentation-mcp'),
  };
}

/** `result`: true/false, or a verdict ('PASS', 'FAIL', 'UNCLEAR') from an interval. */
/** The section running now: each target and comparison names the section it came from. */
let running;

function target(name, result, detail) {
  const verdict = typeof result === 'string' ? result : result ? 'PASS' : 'FAIL';
  results.targets.push({ name, ok: verdict === 'PASS', verdict, detail, section: running });
}

/** This package's rows (and the references); every other row is a peer. */
const isOurs = (v) =>
  v === 'baseline' ||
  v === 'floor' ||
  v === 'mission-floor' ||
  v === 'mission-floor-tap' ||
  v === 'omcp' ||
  v.startsWith('omcp-');

/**
 * Rows printed for comparison only, with their figures and no verdict word: only targets get one.
 * The separate-process rows (context since CPU per call is judged in one process), a peer against
 * this package's own row, the same code in two rows.
 */
const comparisons = [];
const compare = (name, detail) => comparisons.push({ name, detail, section: running });

/**
 * The separate-process comparisons of one scenario: this package against the mission floor, the
 * plain floor (ok paths) and mission-floor-tap; against each peer at the same output (a
 * client-only peer with `omcp-client-spans`, and `omcp-client` as its own row) or, for a peer that
 * traces both sides, `omcp`.
 */
function overheadComparisons(key, rows, byVariant, variants, { floorOver, missionOver }) {
  const base = byVariant.baseline;
  const mine = rows.omcp;
  compare(
    `${key}: omcp overhead / mission floor overhead`,
    `${us(mine.overheadNs)} µs vs ${us(missionOver)} µs (${mine.ratioToMission.toFixed(2)}×, ${interval(mine.missionInterval)})`,
  );
  if (key.endsWith('/ok'))
    compare(
      `${key}: omcp overhead / floor overhead`,
      `${us(mine.overheadNs)} µs vs ${us(floorOver)} µs (${mine.ratioToFloor.toFixed(2)}×, ${interval(mine.ratioInterval)})`,
    );
  // On an ok path omcp-noobjects runs the same code as omcp (no failure object to add): how far
  // two rows of the same code sit apart in this run.
  if (key.endsWith('/ok') && rows['omcp-noobjects'] !== undefined) {
    const ci = ratioInterval(byVariant['omcp-noobjects'], byVariant.omcp, base, base, GENERATIONS);
    const o = rows['omcp-noobjects'];
    compare(
      `${key}: omcp-noobjects overhead / omcp (the same code on an ok path)`,
      `${us(o.overheadNs)} µs vs ${us(mine.overheadNs)} µs (${(o.overheadNs / mine.overheadNs).toFixed(2)}×, ${interval(ci)})`,
    );
  }
  // The mission floor with its server span at the transport, as this package's is.
  if (rows['mission-floor-tap'] !== undefined) {
    const ci = ratioInterval(
      byVariant.omcp,
      byVariant['mission-floor-tap'],
      base,
      base,
      GENERATIONS,
    );
    const t = rows['mission-floor-tap'];
    compare(
      `${key}: omcp overhead / mission-floor-tap overhead (server span at the transport)`,
      `${us(mine.overheadNs)} µs vs ${us(t.overheadNs)} µs (${(mine.overheadNs / t.overheadNs).toFixed(2)}×, ${interval(ci)})`,
    );
  }
  for (const peer of variants.filter((v) => !isOurs(v))) {
    const p = rows[peer];
    const vsPeer = (mineName, note) => {
      const o = rows[mineName];
      const ci = ratioInterval(byVariant[mineName], byVariant[peer], base, base, GENERATIONS);
      compare(
        `${key}: ${mineName} overhead / ${peer}${note}`,
        `${us(o.overheadNs)} µs vs ${us(p.overheadNs)} µs (${(o.overheadNs / p.overheadNs).toFixed(2)}×, ${interval(ci)}; ${peer} spans: ${p.spans.shape}; ${mineName} spans: ${o.spans.shape})`,
      );
    };
    if (p.spans.shape === 'client only' && rows['omcp-client-spans'] !== undefined) {
      // A client-only peer sends no trace context and records no metrics: the same output from
      // this package is the omcp-client-spans row; omcp-client (trace context sent, metrics on)
      // is its own row.
      vsPeer('omcp-client-spans', ' (same output: client spans only)');
      if (rows['omcp-client'] !== undefined) vsPeer('omcp-client', ' (own row)');
    } else vsPeer('omcp', '');
  }
}

async function overhead() {
  // Every ratio is to the floor's overhead over the baseline: both always run, and so does the
  // this-build row of each paired row.
  const variants = [
    ...new Set(['baseline', 'floor', 'mission-floor', ...(asked ?? VARIANTS), ...pairs.flat()]),
  ];
  const transports = process.env.BENCH_TRANSPORTS?.split(',') ?? ['memory', 'stdio', 'http'];
  /** The variants a transport runs: Streamable HTTP runs SDK 2.x, which the peers do not trace. */
  const runs = (transport) =>
    transport === 'http' ? variants.filter((v) => HTTP_VARIANTS.includes(v)) : variants;
  // The rounds run in GENERATIONS of worker processes, one process per variant at a time: the
  // processes of a generation are started, warmed up, run their share of the rounds and exit
  // before the next generation starts. Two processes of the same code settle on different JIT and
  // heap states and can differ by more than any round's noise, so a run needs many processes of
  // each variant for its intervals to mean something; having them all alive at once (the earlier
  // design, used in turn) left each idle longer between its rounds and made every round colder.
  // The HTTP scenario has processes of its own: code that also serves SDK 2.x objects in the same
  // process costs more on the 1.x paths (about 11 µs a call in-memory, for this package and the
  // mission floor alike), which would tilt the in-memory and stdio rows of the variants that run
  // HTTP against those that do not.
  const local = transports.filter((t) => t !== 'http');
  const groups = [];
  if (local.length > 0) groups.push({ transports: local, variants });
  if (transports.includes('http')) groups.push({ transports: ['http'], variants: runs('http') });
  const groupOf = (transport) => groups.find((g) => g.transports.includes(transport));
  const startGeneration = async () => {
    for (const g of groups) {
      g.workers = {};
      for (const v of g.variants) {
        const w = startWorker(
          './lib/worker.mjs',
          { BENCH_VARIANT: v, BENCH_WORKER_TRANSPORTS: g.transports.join(',') },
          workerNodeArgs,
        );
        await w.ready;
        g.workers[v] = w;
      }
    }
  };
  const workerOf = (transport, v) => groupOf(transport).workers[v];
  const scenarios = [];
  for (const transport of transports)
    for (const scenario of ['ok', 'fail']) scenarios.push({ transport, scenario });

  const spans = {};
  const times = {};
  const wall = {};
  const child = {};
  for (let r = 0; r < ROUNDS; r++) {
    const generation = generationOf(r, ROUNDS);
    if (r === 0 || generation !== generationOf(r - 1, ROUNDS)) {
      await startGeneration();
      if (r === 0)
        for (const transport of transports)
          for (const v of runs(transport))
            (spans[v] ??= {})[transport] = await workerOf(transport, v).send({
              cmd: 'check',
              transport,
            });
      for (const s of scenarios)
        for (const v of runs(s.transport))
          await workerOf(s.transport, v).send({
            cmd: 'run',
            ...s,
            n: WARMUP[s.transport],
            warmup: 0,
          });
    }
    process.stdout.write(`round ${r + 1}/${ROUNDS} (processes ${generation + 1}/${GENERATIONS})\r`);
    for (const s of scenarios) {
      const key = `${s.transport}/${s.scenario}`;
      times[key] ??= {};
      // Rotate the order each round so no variant always runs first or last.
      const list = runs(s.transport);
      const order = list.map((_, i) => list[(i + r) % list.length]);
      for (const v of order) {
        const { nsPerCall, cpuNsPerCall, childCpuNsPerCall } = await workerOf(s.transport, v).send({
          cmd: 'run',
          ...s,
          n: N[s.transport],
          warmup: Math.round(N[s.transport] * ROUND_WARMUP),
        });
        (times[key][v] ??= []).push(cpuNsPerCall);
        ((wall[key] ??= {})[v] ??= []).push(nsPerCall);
        if (s.transport !== 'memory') ((child[key] ??= {})[v] ??= []).push(childCpuNsPerCall);
      }
    }
    if (r === ROUNDS - 1 || generationOf(r + 1, ROUNDS) !== generation)
      for (const g of groups)
        for (const w of Object.values(g.workers)) {
          await w.send({ cmd: 'exit' });
          await w.exited;
        }
  }

  const table = {};
  say(
    '\n## Per-call CPU cost (client + server processes; overhead = median of paired per-round differences to baseline)\n',
  );
  say(
    `${pad('scenario', 13)}${pad('variant', 20)}${lpad('CPU µs', 8)}${lpad('overhead µs', 13)}${lpad('× floor', 9)}${lpad('(95% interval)', 16)}${lpad('× mission', 11)}${lpad('(95% interval)', 16)}${lpad('wall µs', 9)}  spans produced per call`,
  );
  for (const [key, byVariant] of Object.entries(times)) {
    const [transport, scenario] = key.split('/');
    table[key] = {};
    const base = byVariant.baseline;
    const over = (v) => median(byVariant[v].map((t, i) => t - base[i]));
    const floorOver = over('floor');
    const missionOver = over('mission-floor');
    for (const v of runs(transport)) {
      const row = {
        medianNs: median(byVariant[v]),
        wallNs: median(wall[key][v]),
        overheadNs: v === 'baseline' ? 0 : over(v),
        spans: spans[v][transport][scenario],
        expected: EXPECTED[v],
      };
      row.ratioToFloor = v === 'baseline' ? undefined : row.overheadNs / floorOver;
      row.ratioInterval =
        v === 'baseline'
          ? undefined
          : ratioInterval(byVariant[v], byVariant.floor, base, base, GENERATIONS);
      row.ratioToMission = v === 'baseline' ? undefined : row.overheadNs / missionOver;
      row.missionInterval =
        v === 'baseline'
          ? undefined
          : ratioInterval(byVariant[v], byVariant['mission-floor'], base, base, GENERATIONS);
      table[key][v] = row;
      const ci = row.ratioInterval;
      const mi = row.missionInterval;
      const fmt = (r) => (r === undefined ? '-' : r.toFixed(2));
      const fmtCi = (c) => (c === undefined ? '' : `(${c[0].toFixed(2)}–${c[1].toFixed(2)})`);
      say(
        `${pad(key, 13)}${pad(v, 20)}${lpad(us(row.medianNs), 8)}${lpad(v === 'baseline' ? '-' : us(row.overheadNs), 13)}${lpad(fmt(row.ratioToFloor), 9)}${lpad(fmtCi(ci), 16)}${lpad(fmt(row.ratioToMission), 11)}${lpad(fmtCi(mi), 16)}${lpad(us(row.wallNs), 9)}  ${row.spans.shape}`,
      );
    }
    const mine = table[key].omcp;
    // Over Streamable HTTP the rows are printed, not judged: a call costs the 2.x SDK about 3 ms
    // (web Request/Response, a server built per request), and the intervals of a few tens of µs
    // of overhead on that are wider than any target.
    if (mine !== undefined && transport !== 'http')
      overheadComparisons(key, table[key], byVariant, runs(transport), { floorOver, missionOver });
  }
  if (Object.keys(child).length > 0) {
    say(
      '\n## Over stdio and Streamable HTTP, where the overhead lands (client process and server child, µs per call over baseline, median of paired per-round differences)\n',
    );
    say(`${pad('scenario', 13)}${pad('variant', 20)}${lpad('client', 8)}${lpad('server', 8)}`);
    const over = (xs, base) => median(xs.map((t, i) => t - base[i]));
    for (const [key, server] of Object.entries(child)) {
      // The client process's own CPU: the round's total less the child's part.
      const client = (v) => times[key][v].map((t, i) => t - server[v][i]);
      for (const v of runs(key.split('/')[0]).filter((x) => x !== 'baseline')) {
        const row = table[key][v];
        row.clientOverheadNs = over(client(v), client('baseline'));
        row.serverOverheadNs = over(server[v], server.baseline);
        say(
          `${pad(key, 13)}${pad(v, 20)}${lpad(us(row.clientOverheadNs), 8)}${lpad(us(row.serverOverheadNs), 8)}`,
        );
      }
    }
  }
  if (GENERATIONS > 1) {
    // How far the worker processes of one variant sit apart: each process's median overhead
    // (its rounds against the baseline's rounds of the same index).
    say(
      `\n## Spread between worker processes (µs overhead per call, the median of each of the ${GENERATIONS} processes' rounds; lowest–highest)\n`,
    );
    say(`${pad('scenario', 13)}${pad('variant', 20)}${lpad('lowest', 8)}${lpad('highest', 9)}`);
    for (const [key, byVariant] of Object.entries(times)) {
      const base = byVariant.baseline;
      for (const v of runs(key.split('/')[0]).filter((x) => x !== 'baseline')) {
        const perProcess = [];
        for (let k = 0; k < GENERATIONS; k++) {
          const d0 = byVariant[v];
          const d = d0
            .map((t, i) => t - base[i])
            .filter((_, i) => generationOf(i, d0.length) === k);
          if (d.length > 0) perProcess.push(median(d));
        }
        table[key][v].processOverheadNs = perProcess;
        say(
          `${pad(key, 13)}${pad(v, 20)}${lpad(us(Math.min(...perProcess)), 8)}${lpad(us(Math.max(...perProcess)), 9)}`,
        );
      }
    }
  }
  results.overhead = { variants, table, spans, cpu: times, wall, serverCpu: child };
  if (pairs.length > 0) {
    sayPairsHeader('Overhead', 'overhead µs over baseline, median of paired per-round differences');
    for (const [key, byVariant] of Object.entries(times))
      for (const [after, before] of pairs.filter(([a]) => table[key][a] !== undefined)) {
        const ci = ratioInterval(
          byVariant[after],
          byVariant[before],
          byVariant.baseline,
          byVariant.baseline,
          GENERATIONS,
        );
        const a = table[key][after].overheadNs;
        const b = table[key][before].overheadNs;
        sayPair(key, after, us(a), us(b), a / b, ci);
        (results.beforeAfter.overhead[key] ??= {})[after] = {
          afterNs: a,
          beforeNs: b,
          ratio: a / b,
          ratioInterval: ci,
        };
      }
  }
}

/**
 * Every variant in one process, in short runs of calls (bench/lib/inprocess.mjs): the
 * per-call cost of each variant's own code without what separates worker processes. Several
 * such processes, each connecting the pairs in another order; within a process, each variant's
 * run of calls is paired with the baseline's run of the same round. This is where CPU per call
 * is judged: nothing separates the rows but their own code (this package in manual mode, the
 * same patches as auto mode applied to its own pair).
 */
async function inprocess() {
  const processes = Math.max(1, Number(process.env.BENCH_INPROC_PROCESSES ?? '6'));
  const runs = [];
  for (let k = 0; k < processes; k++)
    runs.push(
      runScript('./lib/inprocess.mjs', {
        // Spread over the (up to 7) pairs: each process connects them from another one.
        BENCH_INPROC_ORDER: String(blockOf(k, processes, 7)),
      }),
    );
  const names = runs[0].variants;
  say(
    `\n## In one process (in-memory; every variant's pair in the same process; ${processes} processes of ${runs[0].calls} calls per variant and scenario, in runs of ${runs[0].block} in a shuffled order each round; overhead = median of the differences of each run's median call to the baseline's of the same round; intervals resample processes, then rounds)\n`,
  );
  say(
    `${pad('scenario', 13)}${pad('variant', 20)}${lpad('µs', 8)}${lpad('overhead µs', 13)}${lpad('× mission', 11)}${lpad('(95% interval)', 16)}`,
  );
  const out = { processes, calls: runs[0].calls, block: runs[0].block, variants: names };
  for (const scenario of ['ok', 'fail']) {
    const key = `memory/${scenario}`;
    const blocks = runs.map((r) => r[scenario]);
    // Every process's rounds end to end: the processes are contiguous blocks of equal length, as
    // the generations of the overhead section are, and `ratioInterval` resamples them the same way.
    const flat = Object.fromEntries(names.map((v) => [v, blocks.flatMap((b) => b[v])]));
    const base = flat.baseline;
    const point = Object.fromEntries(
      names.map((v) => [v, median(flat[v].map((t, i) => t - base[i]))]),
    );
    const ratio = (a, b) => ({
      ratio: point[a] / point[b],
      interval: ratioInterval(flat[a], flat[b], base, base, processes),
    });
    const rows = {};
    for (const v of names) {
      const medianNs = median(flat[v]);
      rows[v] = { medianNs, overheadNs: point[v] };
      if (v !== 'baseline') {
        const m = ratio(v, 'mission-floor');
        rows[v].ratioToMission = m.ratio;
        rows[v].missionInterval = m.interval;
      }
      const row = rows[v];
      say(
        `${pad(key, 13)}${pad(v, 20)}${lpad(us(medianNs), 8)}${lpad(v === 'baseline' ? '-' : us(point[v]), 13)}${lpad(row.ratioToMission?.toFixed(2) ?? '-', 11)}${lpad(row.missionInterval ? `(${row.missionInterval[0].toFixed(2)}–${row.missionInterval[1].toFixed(2)})` : '', 16)}`,
      );
    }
    out[scenario] = { rows, blocks };
    const mine = rows.omcp;
    target(
      `${key}, in one process: omcp overhead ≤ 1.15 × mission floor overhead`,
      verdictOf(mine.missionInterval, 1.15),
      `${us(mine.overheadNs)} µs vs ${us(rows['mission-floor'].overheadNs)} µs (${mine.ratioToMission.toFixed(2)}×, ${interval(mine.missionInterval)})`,
    );
    const again = ratio('omcp-again', 'omcp');
    out[scenario].again = again;
    compare(
      `${key}, in one process: omcp-again overhead / omcp (a second pair of the same code)`,
      `${us(rows['omcp-again'].overheadNs)} µs vs ${us(mine.overheadNs)} µs (${again.ratio.toFixed(2)}×, ${interval(again.interval)})`,
    );
    if (rows['omcp-before'] !== undefined) out[scenario].before = ratio('omcp', 'omcp-before');
  }
  if (out.ok.before !== undefined) {
    sayPairsHeader(
      'In one process, overhead',
      'overhead µs over baseline in one process, medians of block differences',
    );
    results.beforeAfter.inprocess = {};
    for (const scenario of ['ok', 'fail']) {
      const { rows, before } = out[scenario];
      const key = `memory/${scenario}`;
      sayPair(
        key,
        'omcp',
        us(rows.omcp.overheadNs),
        us(rows['omcp-before'].overheadNs),
        before.ratio,
        before.interval,
      );
      results.beforeAfter.inprocess[key] = {
        afterNs: rows.omcp.overheadNs,
        beforeNs: rows['omcp-before'].overheadNs,
        ratio: before.ratio,
        ratioInterval: before.interval,
      };
    }
  }
  results.inprocess = out;
}

/**
 * How cost grows with load (in-memory, ok path): per-call overhead of this package over the
 * baseline at 1, 10, 100 and 1,000 calls in flight at once, and for tool results of 1 KB to
 * 1 MB (payload capture off: nothing may copy or serialise a payload it does not record). Each
 * level's overhead is compared with the first level's; flat means it grows by at most 10 %,
 * interval included. The mission floor runs beside it as a reference.
 */
async function scaling() {
  const variants = ['baseline', 'mission-floor', 'omcp'];
  const workers = {};
  for (const v of variants) {
    workers[v] = startWorker('./lib/worker.mjs', {
      BENCH_VARIANT: v,
      BENCH_WORKER_TRANSPORTS: 'memory',
    });
    await workers[v].ready;
  }
  const n = Math.max(1000, Math.round(1000 * scale));
  const sweeps = {
    concurrency: [1, 10, 100, 1000].map((c) => ({ label: `${c} in flight`, tool: 'ok', c })),
    payload: [
      ['1 KB', 'p1k'],
      ['10 KB', 'p10k'],
      ['100 KB', 'p100k'],
      ['1 MB', 'p1m'],
    ].map(([label, tool]) => ({ label: `${label} result`, tool, c: 1 })),
  };
  const levels = Object.values(sweeps).flat();
  const run = (v, l, count, warmup) =>
    workers[v].send({
      cmd: 'run',
      transport: 'memory',
      scenario: l.tool,
      concurrency: l.c,
      n: count,
      warmup,
      gc: true,
    });
  for (const l of levels) for (const v of variants) await run(v, l, n, 0);
  const rounds = Math.max(2, Math.round(ROUNDS / 2));
  const cpu = {};
  const gc = {};
  for (let r = 0; r < rounds; r++) {
    process.stdout.write(`scaling round ${r + 1}/${rounds}\r`);
    for (const l of levels) {
      const order = variants.map((_, i) => variants[(i + r) % variants.length]);
      for (const v of order) {
        const { cpuNsPerCall, gcNsPerCall } = await run(v, l, n, Math.min(l.c, 100));
        ((cpu[l.label] ??= {})[v] ??= []).push(cpuNsPerCall);
        ((gc[l.label] ??= {})[v] ??= []).push(gcNsPerCall);
      }
    }
  }
  for (const v of variants) await workers[v].send({ cmd: 'exit' });
  // Bytes allocated per call at each level: the machine-independent view of the same question.
  const bytes = {};
  for (const v of variants)
    bytes[v] = runScript('./lib/alloc.mjs', {
      BENCH_VARIANT: v,
      BENCH_ALLOC_LEVELS: JSON.stringify(levels),
      BENCH_ALLOC_CALLS:
        process.env.BENCH_ALLOC_CALLS ?? String(Math.max(1000, Math.round(3000 * scale))),
    });
  say(
    `\n## How cost grows (in-memory, ok path; CPU µs per call; overhead over baseline, median of paired per-round differences; ${rounds} rounds of ${n} calls per level)\n`,
  );
  const out = {};
  for (const [sweep, list] of Object.entries(sweeps)) {
    say(
      `${pad(sweep, 13)}${pad('level', 18)}${lpad('baseline µs', 12)}${lpad('mission +µs', 12)}${lpad('omcp +µs', 10)}${lpad('× level 1', 11)}${lpad('(95% interval)', 16)}${lpad('mission ×', 11)}${lpad('omcp +bytes', 13)}${lpad('× level 1', 11)}${lpad('GC µs', 7)}${lpad('GC +µs mission', 16)}${lpad('omcp', 6)}`,
    );
    const first = cpu[list[0].label];
    const rows = [];
    for (const l of list) {
      const t = cpu[l.label];
      const over = (v) => median(t[v].map((x, i) => x - t.baseline[i]));
      const growth = (v) => over(v) / median(first[v].map((x, i) => x - first.baseline[i]));
      const ci = ratioInterval(t.omcp, first.omcp, t.baseline, first.baseline);
      const row = {
        level: l.label,
        baselineNs: median(t.baseline),
        missionOverheadNs: over('mission-floor'),
        omcpOverheadNs: over('omcp'),
        growth: growth('omcp'),
        growthInterval: ci,
        missionGrowth: growth('mission-floor'),
        // GC time per call: the baseline's, and each row's over it (paired, median).
        gcBaselineNs: median(gc[l.label].baseline),
        gcMissionOverNs: median(
          gc[l.label]['mission-floor'].map((x, i) => x - gc[l.label].baseline[i]),
        ),
        gcOmcpOverNs: median(gc[l.label].omcp.map((x, i) => x - gc[l.label].baseline[i])),
        bytesOver: bytes.omcp[l.label] - bytes.baseline[l.label],
        missionBytesOver: bytes['mission-floor'][l.label] - bytes.baseline[l.label],
      };
      row.bytesGrowth = row.bytesOver / (bytes.omcp[list[0].label] - bytes.baseline[list[0].label]);
      rows.push(row);
      say(
        `${pad(sweep, 13)}${pad(l.label, 18)}${lpad(us(row.baselineNs), 12)}${lpad(us(row.missionOverheadNs), 12)}${lpad(us(row.omcpOverheadNs), 10)}${lpad(row.growth.toFixed(2), 11)}${lpad(`(${ci[0].toFixed(2)}–${ci[1].toFixed(2)})`, 16)}${lpad(row.missionGrowth.toFixed(2), 11)}${lpad(row.bytesOver, 13)}${lpad(row.bytesGrowth.toFixed(2), 11)}${lpad(us(row.gcBaselineNs), 7)}${lpad(us(row.gcMissionOverNs), 16)}${lpad(us(row.gcOmcpOverNs), 6)}`,
      );
    }
    for (const row of rows.slice(1))
      target(
        `scaling ${sweep}, ${row.level}: omcp overhead per call ≤ 1.10 × at ${rows[0].level}`,
        verdictOf(row.growthInterval, 1.1),
        `${us(row.omcpOverheadNs)} µs vs ${us(rows[0].omcpOverheadNs)} µs (${row.growth.toFixed(2)}×, ${interval(row.growthInterval)})`,
      );
    out[sweep] = rows;
  }
  results.scaling = { n, rounds, cpu, gc, bytes, ...out };
}

/**
 * A paired row's verdict: a regression only when the whole interval of after / before lies
 * above 1.
 */
const pairVerdict = ([low, high]) =>
  low > 1 ? 'regression' : high < 1 ? 'no regression (lower)' : 'no regression';

function sayPairsHeader(what, unit) {
  say(
    `\n## ${what} after / before (this build against BENCH_BEFORE_DIST=${process.env.BENCH_BEFORE_DIST}; ${unit})\n`,
  );
  say(
    `${pad('scenario', 13)}${pad('variant', 14)}${lpad('after', 9)}${lpad('before', 9)}${lpad('ratio', 7)}${lpad('(95% interval)', 16)}  verdict`,
  );
}

/** One row of after / before, to three decimals (allocation ratios differ from 1 by about 1 %). */
function sayPair(key, after, a, b, ratio, ci) {
  say(
    `${pad(key, 13)}${pad(after, 14)}${lpad(a, 9)}${lpad(b, 9)}${lpad(ratio.toFixed(3), 7)}${lpad(`(${ci[0].toFixed(3)}–${ci[1].toFixed(3)})`, 16)}  ${pairVerdict(ci)}`,
  );
}

async function alloc() {
  say(
    '\n## Bytes allocated per call (in-memory, V8 sampling heap profiler; machine-independent)\n',
  );
  const out = {};
  const rows = [
    ...new Set([
      'baseline',
      'floor',
      'mission-floor',
      'omcp',
      'omcp-alllogs',
      'omcp-allstacks',
      'omcp-nologs',
      'omcp-noobjects',
      ...pairs.flat(),
    ]),
  ];
  // The rows a target or a pair compares, and the baseline, run in several rounds (order
  // rotating), so their ratio gets an interval; every row's figure is its median over the rounds
  // it ran.
  const repeated = [...new Set(['baseline', 'mission-floor', 'omcp', ...pairs.flat()])];
  const rounds = Number(process.env.BENCH_ALLOC_ROUNDS ?? (pairs.length > 0 ? '5' : '3'));
  const runs = {};
  for (let r = 0; r < rounds; r++) {
    const list = r === 0 ? rows : repeated;
    for (const v of list.map((_, i) => list[(i + r) % list.length]))
      (runs[v] ??= []).push(runScript('./lib/alloc.mjs', { BENCH_VARIANT: v }));
  }
  const bytesOf = (v, scenario) => runs[v].map((x) => x[scenario].bytesPerCall);
  for (const v of rows) {
    out[v] = runs[v][0];
    for (const scenario of ['ok', 'fail'])
      out[v][scenario].bytesPerCall = Math.round(median(bytesOf(v, scenario)));
    if (runs[v].length > 1)
      out[v].rounds = runs[v].map((x) => ({ ok: x.ok.bytesPerCall, fail: x.fail.bytesPerCall }));
  }
  say(
    `${pad('scenario', 13)}${pad('variant', 20)}${lpad('bytes', 8)}${lpad('over baseline', 15)}${lpad('× floor', 9)}${lpad('× mission', 11)}`,
  );
  for (const scenario of ['ok', 'fail']) {
    const base = out.baseline[scenario].bytesPerCall;
    const floorOver = out.floor[scenario].bytesPerCall - base;
    const missionOver = out['mission-floor'][scenario].bytesPerCall - base;
    for (const v of rows) {
      const bytes = out[v][scenario].bytesPerCall;
      const over = bytes - base;
      const of = (x) => (v === 'baseline' ? '-' : (over / x).toFixed(2));
      say(
        `${pad(`memory/${scenario}`, 13)}${pad(v, 20)}${lpad(bytes, 8)}${lpad(v === 'baseline' ? '-' : over, 15)}${lpad(of(floorOver), 9)}${lpad(of(missionOver), 11)}`,
      );
    }
  }
  for (const scenario of ['ok', 'fail']) {
    const base = bytesOf('baseline', scenario);
    const ci = ratioInterval(bytesOf('omcp', scenario), bytesOf('mission-floor', scenario), base);
    const over = (v) => median(bytesOf(v, scenario).map((x, i) => x - base[i]));
    target(
      `memory/${scenario}: omcp bytes allocated per call ≤ 1.15 × mission floor's (over baseline)`,
      verdictOf(ci, 1.15),
      `${Math.round(over('omcp'))} vs ${Math.round(over('mission-floor'))} bytes over baseline (${(over('omcp') / over('mission-floor')).toFixed(2)}×, ${interval(ci)}, ${rounds} rounds)`,
    );
  }
  for (const scenario of ['ok', 'fail']) {
    say(`\nlargest allocators, omcp memory/${scenario} (bytes per call):`);
    for (const t of out.omcp[scenario].top) say(`  ${lpad(t.bytesPerCall, 6)}  ${t.fn}`);
  }
  results.alloc = out;
  if (pairs.length > 0) {
    sayPairsHeader(
      'Bytes allocated per call',
      `bytes per call, the ratio of bytes over baseline, ${rounds} rounds`,
    );
    for (const scenario of ['ok', 'fail'])
      for (const [after, before] of pairs) {
        const base = bytesOf('baseline', scenario);
        const ci = ratioInterval(bytesOf(after, scenario), bytesOf(before, scenario), base);
        const a = out[after][scenario].bytesPerCall;
        const b = out[before][scenario].bytesPerCall;
        const over = (v) => median(bytesOf(v, scenario).map((x, i) => x - base[i]));
        const ratio = over(after) / over(before);
        sayPair(`memory/${scenario}`, after, a, b, ratio, ci);
        (results.beforeAfter.alloc[`memory/${scenario}`] ??= {})[after] = {
          afterBytes: a,
          beforeBytes: b,
          ratio,
          ratioInterval: ci,
        };
      }
  }
}

async function parts() {
  say(
    "\n## What a failing call's parts cost on their own (ns per operation, tight loop, GC included)\n",
  );
  const out = runScript('./lib/parts.mjs');
  for (const { name, ns } of out) say(`${lpad(ns, 7)}  ${name}`);
  results.parts = out;
}

async function heap() {
  say('\n## Heap growth over 200,000 calls (after GC)\n');
  const calls = Math.round(Number(process.env.BENCH_HEAP_CALLS ?? '200000'));
  const out = {};
  for (const v of ['baseline', 'omcp']) {
    out[v] = runScript('./lib/heap.mjs', { BENCH_VARIANT: v, BENCH_HEAP_CALLS: String(calls) }, [
      '--expose-gc',
    ]);
    say(
      `${pad(v, 10)} heapUsed ${(out[v].before / 2 ** 20).toFixed(1)} MB -> ${(out[v].after / 2 ** 20).toFixed(1)} MB, growth ${(out[v].growth / 2 ** 20).toFixed(2)} MB over ${out[v].calls} calls (${out[v].spans} spans exported); checkpoints MB: ${out[v].checkpoints.map((c) => (c / 2 ** 20).toFixed(1)).join(' ')}`,
    );
  }
  target(
    'heap growth of omcp < 5 MB across 200,000 calls',
    out.omcp.growth < 5 * 2 ** 20 && out.omcp.calls >= 200_000,
    `${(out.omcp.growth / 2 ** 20).toFixed(2)} MB over ${out.omcp.calls} calls`,
  );
  results.heap = out;
}

async function retry() {
  say('\n## Retry timer accuracy (real timers)\n');
  const r = runScript('./lib/retry.mjs');
  say(
    `${r.retries} retries, retryNotBefore ≈ now + ${r.delayMs} ms: lateness min ${r.min.toFixed(2)} ms, median ${r.median.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms, max ${r.max.toFixed(2)} ms; early attempts: ${r.early}; outcome ${r.outcome} after ${r.attempts} attempts`,
  );
  target('retry: no attempt before retryNotBefore', r.early === 0, `${r.early} early`);
  results.retry = r;
}

async function collector() {
  say('\n## Collector unreachable vs reachable (OTLP/HTTP, BatchSpanProcessor)\n');
  const r = await (
    await import('./lib/collector-run.mjs')
  ).collectorBench({ startWorker, median, scale });
  const mb = (b) => (b / 2 ** 20).toFixed(1);
  const b = r.batchSettings;
  say(
    `BatchSpanProcessor maxQueueSize ${b.maxQueueSize}, maxExportBatchSize ${b.maxExportBatchSize}, scheduledDelayMillis ${b.scheduledDelayMillis}, exportTimeoutMillis ${b.exportTimeoutMillis}; exporter timeoutMillis ${r.exporterSettings.timeoutMillis}, concurrencyLimit ${r.exporterSettings.concurrencyLimit}`,
  );
  say(
    `CPU per call (calls + ${r.settleMs} ms settle, ${r.rounds.cpu} interleaved rounds of ${r.calls}): reachable ${us(r.reachableNs)} µs, unreachable ${us(r.unreachableNs)} µs, ratio ${r.ratio.toFixed(3)} (wall ${r.wallRatio.toFixed(3)}); ${r.received} spans received by the local receiver`,
  );
  const e = r.exporter.unreachable;
  say(
    `unreachable exporter: ${e.exports} export calls, ${e.failed} failed, at most ${e.maxInFlight} in flight; reachable: ${r.exporter.reachable.ok} ok of ${r.exporter.reachable.exports}`,
  );
  const bd = r.bound;
  say(
    `one span held ${(r.probe.spanBytes / 1024).toFixed(2)} KiB of heap (tries ${r.probe.tries.map((t) => (t / 1024).toFixed(2)).join(', ')}), one batch of ${b.maxExportBatchSize} serialized ${(r.probe.payloadBytes / 1024).toFixed(0)} KiB; bound ${b.maxQueueSize} + ${bd.limit} × ${b.maxExportBatchSize} = ${bd.spans} spans + ${bd.limit} requests = ${mb(bd.bytes)} MB ± ${mb(bd.uncertainty)} MB`,
  );
  say(
    `heapUsed + arrayBuffers after GC (MB), unreachable/reachable@calls: ${r.checkpoints.unreachable.map((c, i) => `${mb(c.heap + c.arrayBuffers)}/${mb(r.checkpoints.reachable[i].heap + r.checkpoints.reachable[i].arrayBuffers)}@${c.calls}`).join(' ')}; highest per third: ${bd.thirds.map(mb).join(', ')}`,
  );
  say(
    `unreachable after a flush and its last export (${r.released.flushMs} ms): ${mb(r.released.heap + r.released.arrayBuffers)} MB`,
  );
  target(
    'collector unreachable: calls ≤ 1.1 × reachable',
    r.ratio <= 1.1,
    `${r.ratio.toFixed(3)}×`,
  );
  target(
    'collector unreachable: memory bounded by the exporter queue',
    r.bounded,
    `at most ${mb(bd.maxExtra)} MB over the same process with nothing queued; bound ${mb(bd.bytes)} ± ${mb(bd.uncertainty)} MB; ${bd.maxInFlight} of ${bd.limit} exports in flight reached`,
  );
  results.collector = r;
}

/** The load average over the last minute, five and fifteen, as the report prints it. */
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

async function gateway() {
  const { gatewayBench } = await import('./lib/gateway-run.mjs');
  const { reportGateway } = await import('./lib/gateway-report.mjs');
  const before = loadAverage();
  const r = await gatewayBench({
    startWorker,
    scale,
    rounds:
      process.env.BENCH_GATEWAY_ROUNDS === undefined
        ? undefined
        : Number(process.env.BENCH_GATEWAY_ROUNDS),
    loads: process.env.BENCH_GATEWAY_LOADS?.split(',').map(Number),
    onRound: (i) => process.stdout.write(`gateway round ${i + 1}\r`),
  });
  const summary = reportGateway(r, {
    say,
    target,
    verdictOf,
    loadAverage: `${before} at the start, ${loadAverage()} at the end`,
  });
  const t = r.telemetry;
  say(
    `the proxy rows exported ${t.traces.requests} trace requests (${t.traces.bytes} bytes), ${t.metrics.requests} metric requests and ${t.logs.requests} log requests to the local receiver`,
  );
  results.gateway = { ...r, summary };
}

async function volume() {
  const { volumeBench } = await import('./lib/volume-run.mjs');
  const { reportVolume } = await import('./lib/volume-report.mjs');
  const r = await volumeBench({
    scale,
    calls:
      process.env.BENCH_VOLUME_CALLS === undefined
        ? undefined
        : Number(process.env.BENCH_VOLUME_CALLS),
  });
  results.volume = { ...r, summary: reportVolume(r, { say, target, loadAverage: loadAverage() }) };
}

async function coldstart() {
  const { coldstartSection } = await import('./lib/coldstart.mjs');
  results.coldstart = await coldstartSection({ say, target, verdictOf });
}

installPeers();
const started = Date.now();
results.sectionSeconds = {};
for (const [name, section] of Object.entries({
  inprocess,
  alloc,
  overhead,
  scaling,
  parts,
  heap,
  retry,
  collector,
  gateway,
  volume,
  coldstart,
})) {
  if (!want(name)) continue;
  const t = Date.now();
  running = name;
  (results.sectionDates ??= {})[name] = new Date(t).toISOString();
  (results.sectionLoad ??= {})[name] = os.loadavg()[0];
  await section();
  results.sectionSeconds[name] = Math.round((Date.now() - t) / 1000);
}

if (comparisons.length > 0) {
  say(
    '\n## Comparisons, not targets (the separate-process rows; own rows against a client-only peer; the same code in two rows)\n',
  );
  for (const c of comparisons) say(`${c.name}: ${c.detail}`);
  results.comparisons = comparisons;
}
say('\n## Targets\n');
for (const t of results.targets) say(`${pad(t.verdict, 8)}${t.name}: ${t.detail}`);
results.elapsedSeconds = Math.round((Date.now() - started) / 1000);
say(
  `\n${results.targets.filter((t) => t.ok).length}/${results.targets.length} targets hold; ${results.elapsedSeconds} s`,
);
results.loadAverage.after = os.loadavg();
// Full records go to bench/results/runs/ (not committed). A full run writes the compact summary
// docs/performance.md is made from (bench/results/summary.json, committed); a run of some
// sections at full scale (BENCH_ONLY alone) refreshes those sections in it; any other partial run
// (variants, transports, scale, rounds, another build) leaves it alone.
const scaled = [
  'BENCH_VARIANTS',
  'BENCH_TRANSPORTS',
  'BENCH_SCALE',
  'BENCH_ROUNDS',
  'BENCH_BEFORE_DIST',
  'BENCH_GATEWAY_ROUNDS',
  'BENCH_GATEWAY_LOADS',
  'BENCH_VOLUME_CALLS',
  'BENCH_COLDSTART_PAIRS',
  // A record of its own (a smoke test) never refreshes the committed summary.
  'BENCH_RESULTS_NAME',
].some((k) => process.env[k] !== undefined);
const partial = scaled || only !== undefined;
// BENCH_RESULTS_NAME names the record of a run that must not meet another's (a smoke test).
const file = process.env.BENCH_RESULTS_NAME
  ? `./results/runs/${process.env.BENCH_RESULTS_NAME}`
  : partial
    ? './results/runs/partial'
    : './results/runs/latest';
mkdirSync(here('./results/runs'), { recursive: true });
writeFileSync(here(`${file}.json`), `${JSON.stringify(results, null, 2)}\n`);
// The report from the first section on (the peers' install log is not part of it).
const first = report.findIndex((l) => l.startsWith('\n## ') || l.startsWith('## '));
writeFileSync(here(`${file}.txt`), `${report.slice(first).join('\n').trim()}\n`);
const summaryFile = here('./results/summary.json');
if (!scaled) {
  const previous =
    only !== undefined && existsSync(summaryFile)
      ? JSON.parse(readFileSync(summaryFile, 'utf8'))
      : undefined;
  writeFileSync(summaryFile, summaryJson(results, previous));
}
say(
  `results: bench/${file.slice(2)}.json, bench/${file.slice(2)}.txt${scaled ? '' : ', bench/results/summary.json'}`,
);
process.exitCode = results.targets.every((t) => t.ok) ? 0 : 1;
