// The results of a full bench run as the Markdown of docs/performance.md, made from the record
// itself (bench/results/latest.json, and the knock-outs of bench/results/knockouts.json), so that the report's tables cannot drift from the run they
// describe. `node bench/report.mjs` prints the block; `--write` puts it into docs/performance.md
// between its markers; test/reliability/performance-doc.test.ts checks that the two agree.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
export const START = '<!-- bench-results:start (made by node bench/report.mjs --write) -->';
export const END = '<!-- bench-results:end -->';

const us = (ns) => (ns / 1000).toFixed(1);
const x = (r) => (r === undefined ? '–' : r.toFixed(2));
const ci = (c) => (c === undefined ? '' : ` (${c[0].toFixed(2)}–${c[1].toFixed(2)})`);
const int = (n) => Math.round(n).toLocaleString('en-US');
const row = (cells) => `| ${cells.join(' | ')} |`;
const head = (cells, align) => [row(cells), row(align)].join('\n');
const SCENARIO = {
  'memory/ok': 'in-memory ok',
  'memory/fail': 'in-memory fail',
  'stdio/ok': 'stdio ok',
  'stdio/fail': 'stdio fail',
  'http/ok': 'HTTP ok',
  'http/fail': 'HTTP fail',
};
const bold = (v, s) => (v === 'omcp' ? `**${s}**` : s);

function perCall(r) {
  const out = [
    '**Per-call CPU** (client + server processes; overhead over the baseline, median of paired per-round differences; × floor and × mission floor with their 95 % intervals, generations of processes then rounds resampled):',
    '',
    head(
      [
        'Scenario',
        'Variant',
        'CPU µs/call',
        'Overhead µs',
        '× floor (95% interval)',
        '× mission floor (95% interval)',
        'Spans per call',
      ],
      ['---', '---', '---:', '---:', '---:', '---:', '---'],
    ),
  ];
  for (const [key, rows] of Object.entries(r.overhead.table)) {
    let first = true;
    for (const [v, t] of Object.entries(rows)) {
      out.push(
        row([
          first ? SCENARIO[key] : '',
          bold(v, v),
          us(t.medianNs),
          v === 'baseline' ? '–' : us(t.overheadNs),
          v === 'baseline'
            ? '–'
            : bold(v, `${x(t.ratioToFloor)}${v === 'floor' ? '' : ci(t.ratioInterval)}`),
          v === 'baseline'
            ? '–'
            : bold(
                v,
                `${x(t.ratioToMission)}${v === 'mission-floor' ? '' : ci(t.missionInterval)}`,
              ),
          t.spans.shape,
        ]),
      );
      first = false;
    }
  }
  return out.join('\n');
}

function lands(r) {
  const keys = Object.keys(r.overhead.table).filter((k) => !k.startsWith('memory/'));
  const variants = [...new Set(keys.flatMap((k) => Object.keys(r.overhead.table[k])))].filter(
    (v) => v !== 'baseline',
  );
  const out = [
    "**Where the overhead lands** over stdio and HTTP: the same rounds split into the client process's own CPU and the server child's (µs per call over the baseline's, median of paired differences):",
    '',
    head(
      ['Variant', ...keys.flatMap((k) => [`${SCENARIO[k]}: client`, 'server'])],
      ['---', ...keys.flatMap(() => ['---:', '---:'])],
    ),
  ];
  for (const v of variants)
    out.push(
      row([
        bold(v, v),
        ...keys.flatMap((k) => {
          const t = r.overhead.table[k][v];
          return t === undefined ? ['–', '–'] : [us(t.clientOverheadNs), us(t.serverOverheadNs)];
        }),
      ]),
    );
  return out.join('\n');
}

function spread(r) {
  const keys = Object.keys(r.overhead.table);
  const variants = Object.keys(r.overhead.table['memory/ok'] ?? {}).filter((v) => v !== 'baseline');
  const out = [
    `**Spread between worker processes**: each generation's median overhead (µs per call), lowest–highest of the ${r.settings.processes}:`,
    '',
    head(['Variant', ...keys.map((k) => SCENARIO[k])], ['---', ...keys.map(() => '---:')]),
  ];
  for (const v of variants)
    out.push(
      row([
        bold(v, v),
        ...keys.map((k) => {
          const p = r.overhead.table[k][v]?.processOverheadNs;
          return p === undefined ? '–' : `${us(Math.min(...p))}–${us(Math.max(...p))}`;
        }),
      ]),
    );
  return out.join('\n');
}

function inprocess(r) {
  const ip = r.inprocess;
  const out = [
    `**In one process** (in-memory, every variant's pair in the same process; ${ip.processes} processes of ${int(ip.calls)} calls per variant and scenario in runs of ${ip.block}, the runs in a shuffled order each round; overhead = median of the differences of each run's median call to the baseline's of the same round; processes then rounds resampled):`,
    '',
    head(
      [
        'Variant',
        'ok: µs/call',
        'overhead µs',
        '× mission floor (95% interval)',
        'fail: µs/call',
        'overhead µs',
        '× mission floor (95% interval)',
      ],
      ['---', '---:', '---:', '---:', '---:', '---:', '---:'],
    ),
  ];
  for (const v of ip.variants) {
    const cells = [bold(v, v)];
    for (const s of ['ok', 'fail']) {
      const t = ip[s].rows[v];
      cells.push(
        us(t.medianNs),
        v === 'baseline' ? '–' : us(t.overheadNs),
        v === 'baseline'
          ? '–'
          : bold(v, `${x(t.ratioToMission)}${v === 'mission-floor' ? '' : ci(t.missionInterval)}`),
      );
    }
    out.push(row(cells));
  }
  return out.join('\n');
}

function knockouts(k) {
  if (k === undefined) return undefined;
  const s = (name) => k.scenarios[name];
  const saving = (t) => `${us(t.savingNs)} (${us(t.interval[0])} – ${us(t.interval[1])})`;
  const out = [
    `**What each part costs inside a real call** (\`npm run bench:knockouts\`, run of ${k.date.slice(0, 16).replace('T', ' ')} UTC: copies of \`dist/\` with one part taken out each, every copy's in-memory pair in one process with an unmodified copy, the mission floor and the baseline; ${k.processes} processes of ${int(k.calls)} calls per pair and scenario. The saving is the median of the per-round differences to the unmodified copy, µs per call, with its 95 % interval, processes then rounds resampled. The unmodified copy's overhead: ok ${us(s('ok').controlNs)} µs, fail ${us(s('fail').controlNs)} µs; the mission floor's: ok ${us(s('ok').missionNs)} µs, fail ${us(s('fail').missionNs)} µs):`,
    '',
    head(
      [
        'Knock-out',
        'What it drops',
        'ok: saving µs (95% interval)',
        'fail: saving µs (95% interval)',
      ],
      ['---', '---', '---:', '---:'],
    ),
  ];
  for (const [name, t] of Object.entries(s('ok').rows))
    out.push(row([`\`${name}\``, t.drops, saving(t), saving(s('fail').rows[name])]));
  // A knock-out that combines others: where its copy sits against the mission floor.
  const over = (t) =>
    `${us(t.overMissionNs)} µs (${us(t.overMissionInterval[0])} – ${us(t.overMissionInterval[1])})`;
  for (const [name, t] of Object.entries(s('ok').rows)) {
    if (t.combines === undefined || t.overMissionNs === undefined) continue;
    out.push(
      '',
      `With \`${name}\` (${t.combines.map((n) => `\`${n}\``).join(', ')} at once), the copy costs ${over(t)} over the mission floor on the ok path and ${over(s('fail').rows[name])} on the failing path in this run, among all ${Object.keys(s('ok').rows).length + 1} copies, median of the per-round differences with its 95 % interval.`,
    );
  }
  return out.join('\n');
}

function bytes(r) {
  const a = r.alloc;
  const out = [
    '**Bytes allocated per call** (in-memory, both sides in one process; the baseline, the mission floor and `omcp` in several rounds, their median; the rest in one):',
    '',
    head(
      [
        'Variant',
        'ok',
        'over baseline',
        '× floor',
        '× mission floor',
        'fail',
        'over baseline',
        '× floor',
        '× mission floor',
      ],
      ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
    ),
  ];
  for (const v of Object.keys(a)) {
    const cells = [bold(v, v)];
    for (const s of ['ok', 'fail']) {
      const b = a[v][s].bytesPerCall;
      const base = a.baseline[s].bytesPerCall;
      const over = b - base;
      cells.push(
        int(b),
        v === 'baseline' ? '–' : int(over),
        v === 'baseline' ? '–' : x(over / (a.floor[s].bytesPerCall - base)),
        v === 'baseline' ? '–' : bold(v, x(over / (a['mission-floor'][s].bytesPerCall - base))),
      );
    }
    out.push(row(cells));
  }
  return out.join('\n');
}

function scaling(r) {
  const out = [
    "**How cost grows** (in-memory, ok path, one worker process per row; µs of CPU per call; `+µs` is the overhead over the baseline; the GC columns are the baseline's GC time per call and each row's over it):",
    '',
    head(
      [
        'Sweep',
        'Level',
        'baseline µs',
        'mission floor +µs',
        'omcp +µs',
        'omcp × level 1 (95% interval)',
        'mission floor × level 1',
        'omcp +bytes',
        '× level 1',
        'baseline GC µs',
        'mission floor GC +µs',
        'omcp GC +µs',
      ],
      [
        '---',
        '---',
        '---:',
        '---:',
        '---:',
        '---:',
        '---:',
        '---:',
        '---:',
        '---:',
        '---:',
        '---:',
      ],
    ),
  ];
  for (const sweep of ['concurrency', 'payload'])
    for (const l of r.scaling[sweep])
      out.push(
        row([
          sweep,
          l.level,
          us(l.baselineNs),
          us(l.missionOverheadNs),
          us(l.omcpOverheadNs),
          `${x(l.growth)}${ci(l.growthInterval)}`,
          x(l.missionGrowth),
          int(l.bytesOver),
          x(l.bytesGrowth),
          us(l.gcBaselineNs),
          us(l.gcMissionOverNs),
          us(l.gcOmcpOverNs),
        ]),
      );
  return out.join('\n');
}

function parts(r) {
  return [
    "**What a failing call's parts cost on their own** (ns per operation, tight loop, GC included):",
    '',
    head(['Part', 'ns'], ['---', '---:']),
    ...r.parts.map((p) => row([p.name, int(p.ns)])),
  ].join('\n');
}

function others(r) {
  const h = r.heap;
  const t = r.retry;
  const c = r.collector;
  const mb = (b) => (b / 2 ** 20).toFixed(1);
  const bounded = r.targets.find((x) => x.name.startsWith('collector unreachable: memory'));
  return [
    'Other sections of the same run:',
    '',
    `- **Heap after GC, ${int(h.omcp.calls)} calls (3 ok : 1 fail), in-memory**: baseline ${mb(h.baseline.growth)} MB; omcp **${mb(h.omcp.growth)} MB** (${int(h.omcp.spans)} spans exported).`,
    `- **Retry timer accuracy** (\`withToolRetry\`, real timers, ${t.retries} retries with \`retryNotBefore\` = now + ${t.delayMs} ms): ${t.early} early; lateness min ${t.min.toFixed(2)} ms, median ${t.median.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms, max ${t.max.toFixed(2)} ms.`,
    `- **Collector** (OTLP/HTTP JSON exporter, \`timeoutMillis\` ${c.exporterSettings.timeoutMillis}, \`concurrencyLimit\` ${c.exporterSettings.concurrencyLimit}; \`BatchSpanProcessor\` \`maxQueueSize\` ${c.batchSettings.maxQueueSize}, \`maxExportBatchSize\` ${c.batchSettings.maxExportBatchSize}, \`scheduledDelayMillis\` ${c.batchSettings.scheduledDelayMillis}): CPU per call reachable ${us(c.reachableNs)} µs, unreachable ${us(c.unreachableNs)} µs (**${c.ratio.toFixed(2)}×**; the local receiver got ${int(c.received)} spans). Memory: ${bounded?.detail ?? '–'}.`,
  ].join('\n');
}

function verdicts(r) {
  const mark = (v) => (v === 'PASS' ? v : `**${v}**`);
  const held = r.targets.filter((t) => t.ok).length;
  return [
    '**Targets** (a target holds only when its whole interval is within the limit):',
    '',
    head(['Verdict', 'Target', 'Measured'], ['---', '---', '---']),
    ...r.targets.map((t) => row([mark(t.verdict), t.name, t.detail])),
    '',
    `${held} of ${r.targets.length} targets hold.`,
    '',
    'Printed beside the targets, not judged:',
    '',
    head(['Reading', 'Comparison', 'Measured'], ['---', '---', '---']),
    ...(r.comparisons ?? []).map((c) => row([c.verdict, c.name, c.detail])),
  ].join('\n');
}

/** The Markdown block of a results record. */
export function resultsMarkdown(r, k) {
  const m = r.machine;
  const v = r.versions;
  const s = r.settings;
  const runLine = `Run of ${r.date.slice(0, 16).replace('T', ' ')} UTC. Machine: ${m.cpus} vCPU ${m.cpu}, ${m.memGiB} GiB, ${m.platform}, Node ${m.node.slice(1)}. Versions: \`@modelcontextprotocol/sdk\` ${v['@modelcontextprotocol/sdk']}, OpenTelemetry SDK ${v['@opentelemetry/sdk-trace-base']} / ${v['@opentelemetry/exporter-trace-otlp-http']}, \`autotel-mcp-instrumentation\` ${v['autotel-mcp-instrumentation']}, \`autotel\` ${v.autotel}, \`@traceloop/instrumentation-mcp\` ${v['@traceloop/instrumentation-mcp']}. ${s.rounds} rounds of ${s.n.memory} (in-memory) / ${s.n.stdio} (stdio) / ${s.n.http} (HTTP) calls in ${s.processes} generations of worker processes; ${r.elapsedSeconds} s for the whole run (${Object.entries(
    r.sectionSeconds,
  )
    .map(([k, n]) => `${k} ${n} s`)
    .join(', ')}).`;
  return [
    START,
    runLine,
    perCall(r),
    lands(r),
    spread(r),
    inprocess(r),
    knockouts(k),
    bytes(r),
    scaling(r),
    parts(r),
    others(r),
    verdicts(r),
    END,
  ]
    .filter((block) => block !== undefined)
    .join('\n\n');
}

/** `doc` with its results block replaced by `block`. */
export function withResults(doc, block) {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error('docs/performance.md has no results markers');
  return doc.slice(0, from) + block + doc.slice(to + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const record = JSON.parse(readFileSync(here('./results/latest.json'), 'utf8'));
  // The knock-out record (npm run bench:knockouts), when there is one.
  const knockoutsFile = here('./results/knockouts.json');
  const knocked = existsSync(knockoutsFile)
    ? JSON.parse(readFileSync(knockoutsFile, 'utf8'))
    : undefined;
  const block = resultsMarkdown(record, knocked);
  if (process.argv.includes('--write')) {
    const path = here('../docs/performance.md');
    writeFileSync(path, withResults(readFileSync(path, 'utf8'), block));
  } else console.log(block);
}
