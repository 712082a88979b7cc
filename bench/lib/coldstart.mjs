// The cold-start section of `npm run bench` (BENCH_ONLY=coldstart): time from spawning an SDK
// 1.x stdio server to its first tools/call answer, bare and under each way of instrumenting it,
// in paired, interleaved rounds (each round runs every row once, in an order that rotates), read
// as medians of the paired differences over bare with bootstrap intervals; then where the time
// goes, from a CPU profile of each of bare and the register entry, by package.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { coldStart, VARIANTS } from './coldstart-run.mjs';
import { LIMITS_MS, LINES, lineProject, nodeBinary } from './coldstart-lines.mjs';
import { profileByOwner } from './coldstart-profile.mjs';
import { differenceInterval, median } from './stats.mjs';

const ROWS = {
  bare: 'bare (node server.mjs)',
  register: 'node --import …/register (this build)',
  'register-all': '  the same, its loader hook wrapping every module (before)',
  nodesdk: "NodeSDK + McpInstrumentation, the README's way (full loader hook)",
  'sdk-node': '@opentelemetry/sdk-node alone, started',
  'loader-hook': 'a loader hook that does nothing (module.register)',
  traceloop: "Traceloop's NodeSDK + loader hook (peer)",
};

/** A local OTLP/HTTP JSON receiver: the names of the spans each export carried. */
async function receiver() {
  const names = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      try {
        for (const rs of JSON.parse(body).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) names.push(s.name);
      } catch {
        // not a trace export: metrics and logs are off, nothing else is sent here
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    names,
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * One run of each row exporting traces over OTLP to a local receiver: every row must answer, and
 * the spans each exported are printed (what an instrumented row measures is a working setup).
 */
async function check(variants, say) {
  const sink = await receiver();
  const out = {};
  for (const v of variants) {
    sink.names.length = 0;
    const r = await coldStart(v, {
      env: {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_BSP_SCHEDULE_DELAY: '1',
      },
    });
    // The server ends when its stdin closes; the register entry exports what it holds on the way
    // out, a plain NodeSDK only what its batch sent before (hence the 1 ms batch delay here).
    await new Promise((resolve) => setTimeout(resolve, 300));
    out[v] = { answer: r.answer, spans: [...sink.names] };
    say(
      `check ${v}: answer ${JSON.stringify(r.answer)}, spans exported: ${sink.names.length === 0 ? 'none' : sink.names.join(', ')}`,
    );
  }
  await sink.close();
  return out;
}

/** Self time by package of one profiled cold start of each of `variants`. */
async function profile(variants) {
  const by = {};
  for (const v of variants) {
    const dir = mkdtempSync(join(os.tmpdir(), `coldstart-${v}-`));
    try {
      await coldStart(v, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
      // The profile is written as the process exits, after the client saw it close.
      by[v] = profileByOwner(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return by;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** `+N ms (95% interval A to B)` of a row measured over bare. */
const overText = (row) =>
  `${row.over >= 0 ? '+' : ''}${row.over.toFixed(0)} ms (95% interval ${row.interval.map((x) => x.toFixed(0)).join(' to ')})`;

/**
 * The targets: on each Node.js line, in a user's project (bench/lib/coldstart-lines.mjs), bare
 * and under the register entry in paired rounds whose order alternates. Each line's start is
 * checked first: the tool answers and the server's stderr holds the entry's one line only.
 */
async function perLine({ say, target, verdictOf }, pairs) {
  say('\nOn each Node.js line, in a fresh install of the packed tarballs (user project):\n');
  say(`${'line'.padEnd(44)}${'bare ms'.padStart(9)}  register entry over bare, ${pairs} pairs`);
  const rows = [];
  // BENCH_COLDSTART_LINES: the rows to run, e.g. `20:2.x,26:3.x` (every row by default).
  const only = process.env.BENCH_COLDSTART_LINES?.split(',');
  for (const { node, otel } of LINES) {
    if (only !== undefined && !only.includes(`${node}:${otel}`)) continue;
    const binary = nodeBinary(node);
    const name = `Node.js ${node}, OpenTelemetry JS ${otel}`;
    if (binary.path === undefined) {
      say(`${name.padEnd(44)} not measured: ${binary.reason}`);
      continue;
    }
    const at = { project: lineProject(otel), node: binary.path };
    const first = await coldStart('register', at);
    const lines = first.stderr.trim().split('\n');
    if (first.answer !== 'cold' || lines.length !== 1 || !lines[0].includes(`JS ${otel} started`))
      throw new Error(`cold start ${name}: answer ${first.answer}, stderr:\n${first.stderr}`);
    const ms = { bare: [], register: [] };
    for (let r = 0; r < pairs; r++)
      for (const v of r % 2 === 0 ? ['bare', 'register'] : ['register', 'bare'])
        ms[v].push((await coldStart(v, at)).ms);
    const version = execFileSync(binary.path, ['--version'], { encoding: 'utf8' }).trim();
    const row = {
      node,
      version,
      otel,
      bare: median(ms.bare),
      over: median(ms.register.map((x, i) => x - ms.bare[i])),
      interval: differenceInterval(ms.register, ms.bare),
      ms,
    };
    rows.push(row);
    say(`${`${name} (${version})`.padEnd(44)}${row.bare.toFixed(0).padStart(9)}  ${overText(row)}`);
    target(
      `cold start on Node.js ${node} (${otel}): the register entry adds ≤ ${LIMITS_MS[node]} ms to time-to-first-answer over bare`,
      verdictOf(row.interval, LIMITS_MS[node]),
      `${version}: ${overText(row)}, ${pairs} pairs`,
    );
  }
  return rows;
}

/** The section; `verdictOf` and `target` are the report's own. */
export async function coldstartSection({ say, target, verdictOf }) {
  const pairs = Math.max(1, Number(process.env.BENCH_COLDSTART_PAIRS ?? '20'));
  const asked = process.env.BENCH_COLDSTART_VARIANTS?.split(',');
  const variants = Object.keys(VARIANTS).filter(
    (v) => v === 'bare' || v === 'register' || asked === undefined || asked.includes(v),
  );
  say('\n## Cold start: spawn to the first tools/call answer (SDK 1.x stdio server, one tool)\n');
  say(`load average before: ${load()} (${os.cpus().length} cores); exporters: none`);
  const lines = await perLine({ say, target, verdictOf }, pairs);
  say(`\nIn this repository's tree on Node.js ${process.versions.node} (context, no target):\n`);
  const checked = await check(variants, say);
  const ms = Object.fromEntries(variants.map((v) => [v, []]));
  for (let r = 0; r < pairs; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + r) % variants.length];
      const run = await coldStart(v);
      if (run.answer !== 'cold')
        throw new Error(`cold start ${v}: no answer from the tool (${run.stderr.trim()})`);
      ms[v].push(run.ms);
    }
  }
  say(
    `\n${pairs} rounds, each row once per round in a rotating order; load average after: ${load()}\n`,
  );
  say(`${'row'.padEnd(68)}${'median ms'.padStart(10)}  over bare, median of paired differences`);
  const rows = {};
  for (const v of variants) {
    const row = { median: median(ms[v]) };
    if (v !== 'bare') {
      row.over = median(ms[v].map((x, i) => x - ms.bare[i]));
      row.interval = differenceInterval(ms[v], ms.bare);
    }
    rows[v] = row;
    const over = row.over === undefined ? '' : overText(row);
    say(`${ROWS[v].padEnd(68)}${row.median.toFixed(0).padStart(10)}  ${over}`);
  }
  const profiles =
    process.env.BENCH_COLDSTART_PROFILE === '0' ? {} : await profile(['bare', 'register']);
  if (profiles.register !== undefined) {
    say('\nCPU self time by package, one profiled start each (main thread + loader thread), ms:\n');
    const base = new Map(profiles.bare.rows.map((r) => [r.owner, r.ms]));
    const top = profiles.register.rows.filter((r) => r.owner !== '(idle)').slice(0, 12);
    say(`${'package'.padEnd(40)}${'register'.padStart(10)}${'bare'.padStart(10)}`);
    for (const r of top)
      say(
        `${r.owner.padEnd(40)}${r.ms.toFixed(0).padStart(10)}${(base.get(r.owner) ?? 0).toFixed(0).padStart(10)}`,
      );
  }
  return { pairs, lines, ms, rows, checked, profiles, load: os.loadavg() };
}
