// `npm run bench:attribute`: where this package's time goes inside real calls, against the
// mission floor's, by a CPU profile of one process that runs both (bench/lib/attribute-driver.mjs).
// Each sample is charged to the nearest frame, from the leaf up, of this package, the mission
// floor, the MCP SDK, zod or the bench; OpenTelemetry, Node.js and native frames are charged to
// whoever called them, so a span started by this package is this package's time. Within this
// package and the mission floor, a sample is filed under the outermost frame of the same owner
// above it (the entry point: the client's request wrapper, the transport tap's message handler
// and so on). Samples under a batch export (a span or log batch flushed when it fills) are filed
// apart: which call fills a batch is an accident of timing, not a cost of that call.
//
// Settings: ATTRIBUTE_CALLS (calls per row, scenario and process, 40000), ATTRIBUTE_PROCESSES
// (3), ATTRIBUTE_INTERVAL (sampling interval in µs, 100). Writes
// bench/results/attribution.{txt,json} unless ATTRIBUTE_PARTIAL=1.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const calls = Number(process.env.ATTRIBUTE_CALLS ?? '40000');
const interval = Number(process.env.ATTRIBUTE_INTERVAL ?? '100');
const processes = Math.max(1, Number(process.env.ATTRIBUTE_PROCESSES ?? '3'));
const dist = here('../dist/');

/** Who a frame belongs to. */
function ownerOf(frame) {
  const url = frame.url;
  if (url.includes(dist)) return 'omcp';
  if (url.endsWith('/mission-floor.mjs')) return 'mission-floor';
  if (url.includes('@modelcontextprotocol/')) return 'sdk';
  if (url.includes('/node_modules/zod/')) return 'zod';
  if (url.includes('/bench/')) return 'bench';
  return undefined; // OpenTelemetry, Node.js, natives: charged to the caller
}

/** `name (dir/file:line)`; a frame without a file is named alone, or by `fallback`. */
function frameName(f, fallback) {
  if (f.url === '') return `${f.functionName || '(native)'}${fallback ? ` (${fallback})` : ''}`;
  const where = f.url.split('/').slice(-2).join('/');
  return `${f.functionName || '(anonymous)'} (${where}:${f.lineNumber + 1})`;
}

const EXPORT_FRAMES = new Set(['_flushOneBatch', 'forceFlush', '_flushAll']);
const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)']);

/** The profile of one driver process, attributed. */
function profileOnce(tool) {
  const dir = mkdtempSync(join(tmpdir(), 'omcp-attribute-'));
  try {
    execFileSync(
      process.execPath,
      [
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
        `--cpu-prof-interval=${interval}`,
        here('./lib/attribute-driver.mjs'),
      ],
      {
        cwd: here('.'),
        env: { ...process.env, ATTRIBUTE_TOOL: tool, ATTRIBUTE_CALLS: String(calls) },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const owners = new Map();
    const entries = { omcp: new Map(), 'mission-floor': new Map() };
    const inner = { omcp: new Map(), 'mission-floor': new Map() };
    const add = (map, key, dt) => map.set(key, (map.get(key) ?? 0) + dt);
    for (let i = 0; i < profile.samples.length; i++) {
      const dt = profile.timeDeltas[i + 1] ?? 0;
      const leaf = byId.get(profile.samples[i]);
      if (SPECIAL.has(leaf.callFrame.functionName)) {
        add(owners, leaf.callFrame.functionName, dt);
        continue;
      }
      // The path from the leaf to the root.
      const path = [];
      for (let id = leaf.id; id !== undefined; id = parent.get(id)) path.push(byId.get(id));
      if (path.some((n) => EXPORT_FRAMES.has(n.callFrame.functionName))) {
        add(owners, 'export of batches', dt);
        continue;
      }
      const first = path.findIndex((n) => ownerOf(n.callFrame) !== undefined);
      if (first < 0) {
        add(owners, 'other', dt);
        continue;
      }
      const owner = ownerOf(path[first].callFrame);
      add(owners, owner, dt);
      if (!(owner in entries)) continue;
      // The outermost frame of the same owner before another owner's frame.
      let entry = path[first];
      for (let j = first + 1; j < path.length; j++) {
        const o = ownerOf(path[j].callFrame);
        if (o === owner) entry = path[j];
        else if (o !== undefined) break;
      }
      const key = frameName(entry.callFrame);
      add(entries[owner], key, dt);
      // What ran: the owner's own code (the function the sample is in), else the callee at the
      // leaf (an OpenTelemetry, Node.js or native function).
      const what =
        first === 0
          ? `own code: ${frameName(leaf.callFrame)}`
          : frameName(leaf.callFrame, `called from ${frameName(path[first].callFrame)}`);
      if (!inner[owner].has(key)) inner[owner].set(key, new Map());
      add(inner[owner].get(key), what, dt);
    }
    return { owners, entries, inner };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `processes` driver processes of `tool`, their attributions added up (each process settles its
 * JIT and heap its own way); also each process's own-time difference, this package less the
 * mission floor, µs per call.
 */
function attribute(tool) {
  const merged = { owners: new Map(), entries: {}, inner: {}, differences: [] };
  const addAll = (into, from) => {
    for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
  };
  for (let p = 0; p < processes; p++) {
    const one = profileOnce(tool);
    addAll(merged.owners, one.owners);
    for (const owner of Object.keys(one.entries)) {
      merged.entries[owner] ??= new Map();
      merged.inner[owner] ??= new Map();
      addAll(merged.entries[owner], one.entries[owner]);
      for (const [k, parts] of one.inner[owner]) {
        if (!merged.inner[owner].has(k)) merged.inner[owner].set(k, new Map());
        addAll(merged.inner[owner].get(k), parts);
      }
    }
    merged.differences.push(
      ((one.owners.get('omcp') ?? 0) - (one.owners.get('mission-floor') ?? 0)) / calls,
    );
  }
  return merged;
}

const lines = [];
const say = (line = '') => {
  lines.push(line);
  console.log(line);
};
const perCall = (us) => us / (calls * processes);
const fmt = (us) => perCall(us).toFixed(2);
const results = {
  date: new Date().toISOString(),
  calls,
  processes,
  intervalUs: interval,
  scenarios: {},
};
say(
  `# Where the time goes inside real calls: this package against the mission floor (in-memory, both in one process; ${processes} processes of ${calls} calls each per scenario in runs of 25, the order of the two runs drawn every round; CPU profile sampled every ${interval} µs, µs per call under the profiler, which inflates every figure alike)`,
);
for (const tool of ['ok', 'fail']) {
  const { owners, entries, inner, differences } = attribute(tool);
  const omcp = owners.get('omcp') ?? 0;
  const mission = owners.get('mission-floor') ?? 0;
  say();
  say(
    `## memory/${tool}: this package's own time ${fmt(omcp)} µs a call, the mission floor's ${fmt(mission)} µs (${(omcp / mission).toFixed(2)}×, ${(perCall(omcp) - perCall(mission)).toFixed(2)} µs more; in each process ${differences.map((d) => d.toFixed(2)).join(', ')})`,
  );
  say();
  say('owner                       µs/call');
  for (const [k, v] of [...owners].sort((a, b) => b[1] - a[1]))
    say(`${k.padEnd(26)}${fmt(v).padStart(8)}`);
  const scenario = {
    differencesUs: differences,
    ownersUs: Object.fromEntries([...owners].map(([k, v]) => [k, perCall(v)])),
    entriesUs: {},
  };
  for (const owner of ['omcp', 'mission-floor']) {
    say();
    say(`${owner}: by entry point (µs/call)`);
    const sorted = [...entries[owner]].sort((a, b) => b[1] - a[1]);
    for (const [k, v] of sorted.slice(0, 12)) {
      say(`${fmt(v).padStart(8)}  ${k}`);
      // The larger entry points, by what ran under them.
      if (perCall(v) < 1) continue;
      const parts = [...inner[owner].get(k)].sort((a, b) => b[1] - a[1]);
      for (const [w, t] of parts.slice(0, 8)) say(`${fmt(t).padStart(16)}  ${w}`);
    }
    scenario.entriesUs[owner] = Object.fromEntries(
      sorted.map(([k, v]) => [
        k,
        {
          us: perCall(v),
          parts: Object.fromEntries([...inner[owner].get(k)].map(([w, t]) => [w, perCall(t)])),
        },
      ]),
    );
  }
  results.scenarios[tool] = scenario;
}
if (process.env.ATTRIBUTE_PARTIAL !== '1') {
  writeFileSync(here('./results/attribution.txt'), `${lines.join('\n')}\n`);
  // The full profile is not committed: the printed report is.
  mkdirSync(here('./results/runs'), { recursive: true });
  writeFileSync(here('./results/runs/attribution.json'), `${JSON.stringify(results, null, 1)}\n`);
}
