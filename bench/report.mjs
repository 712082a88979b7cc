// The results of a full bench run as the Markdown of docs/performance.md, made from the compact
// record the run commits (bench/results/summary.json, bench/lib/summary.mjs), so that the
// report's tables cannot drift from the run they describe. `node bench/report.mjs` prints the
// block; `--write` puts it into docs/performance.md between its markers;
// test/reliability/performance-doc.test.ts checks that the two agree.
import { readFileSync, writeFileSync } from 'node:fs';
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
const bold = (v, s) => (v === 'omcp' ? `**${s}**` : s);

/** A row's ratio to the mission floor with its interval, or a dash for the references. */
const toMission = (v, t) =>
  v === 'baseline'
    ? '–'
    : bold(v, `${x(t.ratioToMission)}${v === 'mission-floor' ? '' : ci(t.missionInterval)}`);

function inprocess(r) {
  const ip = r.inprocess;
  const a = r.alloc;
  const bytesOver = (v, s) =>
    a?.[v] === undefined ? '–' : v === 'baseline' ? int(a[v][s]) : int(a[v][s] - a.baseline[s]);
  const out = [
    `**Per call, in one process** (the judged figures; in-memory; ${ip.processes} processes of ${int(ip.calls)} calls per pair and scenario; overhead over the baseline in µs, its ratio to the mission floor's with the 95 % interval; bytes allocated per call over the baseline's, the baseline's own in its row):`,
    '',
    head(
      [
        'Variant',
        'ok µs',
        'ok × mission floor',
        'fail µs',
        'fail × mission floor',
        'ok bytes',
        'fail bytes',
      ],
      ['---', '---:', '---:', '---:', '---:', '---:', '---:'],
    ),
  ];
  for (const v of ip.variants) {
    const cells = [bold(v, v)];
    for (const s of ['ok', 'fail']) {
      const t = ip[s].rows[v];
      cells.push(v === 'baseline' ? us(t.medianNs) : us(t.overheadNs), toMission(v, t));
    }
    cells.push(bytesOver(v, 'ok'), bytesOver(v, 'fail'));
    out.push(row(cells));
  }
  return out.join('\n');
}

function verdicts(r) {
  const mark = (v) => (v === 'PASS' ? v : `**${v}**`);
  const held = r.targets.filter((t) => t.ok).length;
  return [
    '**Targets** (a verdict holds only when the whole 95 % interval is on its side of the limit; `UNCLEAR` when the interval straddles it):',
    '',
    head(['Verdict', 'Target', 'Measured'], ['---', '---', '---']),
    ...r.targets.map((t) => row([mark(t.verdict), t.name, t.detail])),
    '',
    `${held} of ${r.targets.length} targets hold.`,
  ].join('\n');
}

/** When each section ran (a run of some sections refreshes only theirs), with the load then. */
function runs(r) {
  const dates =
    r.sectionDates ?? Object.fromEntries(Object.keys(r.sectionSeconds).map((k) => [k, r.date]));
  const byDate = new Map();
  for (const [k, d] of Object.entries(dates)) {
    const when = d.slice(0, 16).replace('T', ' ');
    byDate.set(when, [...(byDate.get(when) ?? []), k]);
  }
  return [...byDate]
    .map(([when, names]) => {
      const load = names.map((n) => r.sectionLoad?.[n]).filter((l) => l !== undefined);
      const loadText =
        load.length === 0 ? '' : `, load average ${load.map((l) => l.toFixed(1)).join(' / ')}`;
      return `${names.map((n) => `${n} (${r.sectionSeconds[n]} s)`).join(', ')} ran ${when} UTC${loadText}`;
    })
    .join('; ');
}

/** The Markdown block of a summary record. */
export function resultsMarkdown(r) {
  const m = r.machine;
  const v = r.versions;
  const runLine = `${m.cpus} vCPU ${m.cpu}, ${m.memGiB} GiB, Node ${m.node.slice(1)}, shared with other work. \`@modelcontextprotocol/sdk\` ${v['@modelcontextprotocol/sdk']}, OpenTelemetry SDK ${v['@opentelemetry/sdk-trace-base']}, \`autotel-mcp-instrumentation\` ${v['autotel-mcp-instrumentation']}, \`@traceloop/instrumentation-mcp\` ${v['@traceloop/instrumentation-mcp']}. Sections: ${runs(r)}.`;
  return [START, runLine, inprocess(r), verdicts(r), END]
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
  const record = JSON.parse(readFileSync(here('./results/summary.json'), 'utf8'));
  const block = resultsMarkdown(record);
  if (process.argv.includes('--write')) {
    const path = here('../docs/performance.md');
    writeFileSync(path, withResults(readFileSync(path, 'utf8'), block));
  } else console.log(block);
}
