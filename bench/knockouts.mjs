// `npm run bench:knockouts`: what each part of this package costs inside a real call. Each
// knock-out is a copy of dist/ with one part taken out (one feature dropped); every copy runs as
// its own in-memory pair in the same process as an unmodified copy (`control`), the mission floor
// and the baseline (bench/lib/inprocess.mjs), and the saving of a knock-out is the median of its
// per-round differences to the control, with a 95 % interval that resamples processes, then
// rounds. The control is a copy too, so that a copy's own cost (another module instance, code the
// JIT has not shared with anything) is not counted as a saving. An edit that no longer matches the
// build stops the run with the knock-out's name: a table of parts that are no longer there would
// mislead.
//
// Settings: KNOCKOUT_PROCESSES (6), KNOCKOUT_CALLS (calls per pair and scenario in each process,
// 8000), KNOCKOUT_ONLY (names, comma-separated). Writes bench/results/knockouts.txt (and the full record to
// bench/results/runs/knockouts.json, not committed) unless
// KNOCKOUT_PARTIAL=1 (the smoke test).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { copyWorkspaceDependencies } from '../scripts/workspace-copy.mjs';
import { blockOf, differenceInterval, median } from './lib/stats.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The knock-outs: what each drops (the feature a user would lose) and its edits of the built
 * JavaScript ([file under dist/esm, text, replacement]; each text must occur exactly once).
 */
const KNOCKOUTS = [
  {
    name: 'no-handler-wrap',
    drops:
      'request handlers unwrapped: no stack for what a handler throws, no ToolFailureError from a handler',
    edits: [
      [
        'server/handlers.js',
        'export function wrapRequestHandler(handler, source) {',
        'export function wrapRequestHandler(handler, source) { return handler;',
      ],
    ],
  },
  {
    name: 'no-callback-wrap',
    drops: "tool callbacks unwrapped: a throw is classified from the SDK's text, not the error",
    edits: [
      [
        'server/handlers.js',
        'export function wrapToolCallback(callback) {',
        'export function wrapToolCallback(callback) { return callback;',
      ],
    ],
  },
  {
    name: 'plain-context',
    drops: 'the running call not in the context: nothing thrown is noted (ok path only)',
    edits: [
      [
        'server/server-call.js',
        'new CallContext(trace.setSpan(parent, span), call)',
        'trace.setSpan(parent, span)',
      ],
    ],
  },
  {
    name: 'plain-reads',
    drops:
      "own data read as plain properties: a hostile object's getters run in the instrumentation",
    edits: [
      [
        'tool-failure/wire/safe.js',
        'const d = Object.getOwnPropertyDescriptor(obj, key);',
        'return obj[key]; const d = undefined;',
      ],
    ],
  },
  {
    name: 'no-propagation',
    drops: 'no trace context in params._meta (propagateContext: false)',
    edits: [
      [
        'shared/config.js',
        "propagateContext: flag('propagateContext', true)",
        "propagateContext: flag('propagateContext', false)",
      ],
    ],
  },
  {
    name: 'no-failure-object',
    drops: 'no failure object classified or added (addFailureObjects: false)',
    edits: [['server/server-call.js', 'if (!config.addFailureObjects)', 'if (true)']],
  },
  {
    name: 'fixed-classification',
    drops:
      'every throw the default class and code: no classification by status, JSON-RPC, system and driver codes, names, causes',
    edits: [
      [
        'tool-failure/classify.js',
        'return classifyBuiltIn(error, options?.now ?? Date.now, 0) ?? { ...DEFAULT_CLASSIFICATION };',
        'return { ...DEFAULT_CLASSIFICATION };',
      ],
    ],
  },
  {
    name: 'unchecked-read',
    drops:
      "the failure object taken as it comes: not checked against the proposal's rules, its accessors not kept out",
    edits: [
      [
        'tool-failure/read.js',
        'return readObject(raw, problems);',
        "return { status: 'valid', failure: raw, problems };",
      ],
    ],
  },
  {
    name: 'object-not-sent',
    drops: 'the failure object classified and recorded on the server, not added to the result',
    edits: [
      ['server/server-call.js', 'if (completed.result !== result)', 'if (false)'],
      ['server/server-call.js', 'result = completed.result;', ''],
    ],
  },
  {
    name: 'client-no-read',
    drops: 'the client does not read the failure object (no class, code on its span and metrics)',
    edits: [
      [
        'client/request.js',
        ': readToolFailureMeta(meta, isError, config.metaKey);',
        ': undefined;',
      ],
    ],
  },
  {
    name: 'no-failure-log',
    drops: 'no failure log record, no exception detail on the server',
    edits: [
      [
        'server/failure-log.js',
        'export function recordDiagnostics(source, call, thrown, failure) {',
        'export function recordDiagnostics(source, call, thrown, failure) { return;',
      ],
    ],
  },
  {
    name: 'no-failure-span-attrs',
    drops: 'no mcp.tool.failure.* attributes on either span',
    edits: [
      ['shared/record.js', 'setFailureAttributes(span, failure, config.maxAttributeLength);', ';'],
    ],
  },
  {
    name: 'no-class-on-duration',
    drops: 'no failure class on the duration histograms',
    edits: [
      [
        'shared/record.js',
        'failedAttributes(metricAttrs, failure?.class)',
        'failedAttributes(metricAttrs, undefined)',
      ],
    ],
  },
  {
    name: 'no-failure-counter',
    drops: 'no failure counters',
    edits: [
      [
        'shared/record.js',
        "(side === 'client' ? instruments.clientFailures : instruments.serverFailures).add(",
        '(() => {})(',
      ],
    ],
  },
  {
    name: 'no-session-id',
    drops: 'no mcp.session.id on the spans (read from the transport on every request)',
    edits: [
      [
        'shared/attributes.js',
        'const sessionId = sessionIdOf(transport);',
        'const sessionId = undefined;',
      ],
    ],
  },
  {
    name: 'no-attempt',
    drops:
      "no mcp.tool.call.attempt on the spans (read from the retry policy's context and the caller's _meta)",
    edits: [
      ['client/request.js', 'const attempt = attemptOf(active);', 'const attempt = undefined;'],
      [
        'server/server-call.js',
        'const attempt = attemptOfMeta(params);',
        'const attempt = undefined;',
      ],
    ],
  },
  {
    // Every part above that the mission floor's output does not include, taken out together:
    // what is left over the mission floor is what this package pays for the same output.
    name: 'beyond-mission-floor',
    drops:
      'all of no-handler-wrap, plain-reads, unchecked-read, fixed-classification, no-session-id and no-attempt at once: what the mission floor does not do',
    of: [
      'no-handler-wrap',
      'plain-reads',
      'unchecked-read',
      'fixed-classification',
      'no-session-id',
      'no-attempt',
    ],
    edits: [],
  },
];

/** The edits of a knock-out: those of the knock-outs it combines, then its own. */
const editsOf = (knockout) => [
  ...(knockout.of ?? []).flatMap((name) => editsOf(KNOCKOUTS.find((k) => k.name === name))),
  ...knockout.edits,
];

/** Makes `dir` a copy of dist/ with `edits` applied; returns a problem, or undefined. */
function makeCopy(dir, knockout) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(here('../dist/esm'), `${dir}/esm`, { recursive: true });
  // The data model is the @omcp/tool-failure the root depends on: the copy gets its own, found
  // before the workspace's, and an edit of `tool-failure/...` applies there.
  copyWorkspaceDependencies(dir);
  const dataModel = `${dir}/node_modules/@omcp/tool-failure`;
  for (const [file, text, replacement] of knockout === undefined ? [] : editsOf(knockout)) {
    const path = file.startsWith('tool-failure/')
      ? `${dataModel}/dist/esm/${file.slice('tool-failure/'.length)}`
      : `${dir}/esm/${file}`;
    const source = readFileSync(path, 'utf8');
    const count = source.split(text).length - 1;
    if (count !== 1)
      return `knock-out ${knockout.name}: "${text}" occurs ${count} times in dist/esm/${file} (expected once); update bench/knockouts.mjs to the code`;
    writeFileSync(
      path,
      source.replace(text, () => replacement),
    );
  }
  return undefined;
}

const only = process.env.KNOCKOUT_ONLY?.split(',');
const chosen = KNOCKOUTS.filter((k) => only === undefined || only.includes(k.name));
const root = here('./.knockouts');
const dists = [['control', `${root}/control`]];
makeCopy(`${root}/control`, undefined);
for (const k of chosen) {
  const problem = makeCopy(`${root}/${k.name}`, k);
  if (problem !== undefined) {
    console.error(`bench: ${problem}`);
    rmSync(root, { recursive: true, force: true });
    process.exit(2);
  }
  dists.push([k.name, `${root}/${k.name}`]);
}

const processes = Math.max(1, Number(process.env.KNOCKOUT_PROCESSES ?? '6'));
const calls = process.env.KNOCKOUT_CALLS ?? '8000';
const runs = [];
try {
  for (let p = 0; p < processes; p++) {
    const out = execFileSync(process.execPath, [here('./lib/inprocess.mjs')], {
      cwd: here('.'),
      env: {
        ...process.env,
        BENCH_INPROC_VARIANTS: 'baseline,mission-floor,omcp',
        BENCH_INPROC_DISTS: dists.map(([n, d]) => `${n}=${d}`).join(','),
        BENCH_INPROC_CALLS: calls,
        BENCH_INPROC_ORDER: String(blockOf(p, processes, dists.length + 3)),
      },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    runs.push(JSON.parse(out.trim().split('\n').pop()));
  }
} finally {
  // The copies go whether the run ended or a process failed.
  rmSync(root, { recursive: true, force: true });
}

const lines = [];
const say = (line = '') => {
  lines.push(line);
  console.log(line);
};
const us = (ns) => (ns / 1000).toFixed(1);
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const results = {
  date: new Date().toISOString(),
  processes,
  calls: Number(calls),
  block: runs[0].block,
  scenarios: {},
};
say(
  `# What each part costs inside a real call (in-memory; ${processes} processes of ${calls} calls per pair and scenario, every pair in one process; saving = median of the per-round differences to an unmodified copy; over MF = median of the per-round differences of the knock-out's copy to the mission floor; 95 % intervals resampling processes, then rounds)`,
);
for (const scenario of ['ok', 'fail']) {
  const flat = (v) => runs.flatMap((r) => r[scenario][v]);
  const base = flat('baseline');
  const over = (v) => median(flat(v).map((t, i) => t - base[i]));
  const control = flat('control');
  const excess = over('control') - over('mission-floor');
  const omcp = flat('omcp');
  const mission = flat('mission-floor');
  const copyCost = median(control.map((t, i) => t - omcp[i]));
  say();
  say(
    `## memory/${scenario}: this package ${us(over('omcp'))} µs over the baseline, an unmodified copy ${us(over('control'))} µs (the copy's own cost ${us(copyCost)} µs), the mission floor ${us(over('mission-floor'))} µs; the copy's excess over the mission floor ${us(excess)} µs`,
  );
  say();
  say(
    `${pad('knock-out', 24)}${lpad('saving µs', 11)}${lpad('(95% interval)', 18)}${lpad('over MF', 10)}${lpad('(95% interval)', 18)}  drops`,
  );
  const rows = {};
  for (const k of chosen) {
    const x = flat(k.name);
    const saving = -median(x.map((t, i) => t - control[i]));
    // The interval of x - control, turned into the saving's (its negative), low to high.
    const [a, b] = differenceInterval(x, control, processes);
    const [low, high] = [-b, -a];
    // Where the copy sits against the mission floor, over the same rounds.
    const left = median(x.map((t, i) => t - mission[i]));
    const leftInterval = differenceInterval(x, mission, processes);
    rows[k.name] = {
      savingNs: saving,
      interval: [low, high],
      overMissionNs: left,
      overMissionInterval: leftInterval,
      combines: k.of,
      drops: k.drops,
    };
    say(
      `${pad(k.name, 24)}${lpad(us(saving), 11)}${lpad(`(${us(low)} – ${us(high)})`, 18)}${lpad(us(left), 10)}${lpad(`(${us(leftInterval[0])} – ${us(leftInterval[1])})`, 18)}  ${k.drops}`,
    );
  }
  results.scenarios[scenario] = {
    overheadNs: over('omcp'),
    controlNs: over('control'),
    missionNs: over('mission-floor'),
    copyNs: copyCost,
    rows,
  };
}
if (process.env.KNOCKOUT_PARTIAL !== '1') {
  writeFileSync(here('./results/knockouts.txt'), `${lines.join('\n')}\n`);
  // The full record is not committed: the printed table is.
  mkdirSync(here('./results/runs'), { recursive: true });
  writeFileSync(here('./results/runs/knockouts.json'), `${JSON.stringify(results, null, 1)}\n`);
}
