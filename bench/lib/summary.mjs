// The compact record of a full bench run (bench/results/summary.json, committed): what
// docs/performance.md is made from (bench/report.mjs) and nothing else. The full record with every
// round of every row goes to bench/results/runs/latest.json, which is not committed. A section
// this module does not know is kept as its section wrote it: a section that adds to the record
// keeps its own part small.

/** Picks `keys` of `o` that are defined. */
const pick = (o, keys) =>
  Object.fromEntries(keys.filter((k) => o?.[k] !== undefined).map((k) => [k, o[k]]));

const ROW = ['medianNs', 'overheadNs', 'ratioToMission', 'missionInterval'];

/** The in-process section: its settings and each row's figures, without the rounds. */
function inprocess(ip) {
  const out = pick(ip, ['processes', 'calls', 'block', 'variants']);
  for (const s of ['ok', 'fail'])
    out[s] = {
      rows: Object.fromEntries(Object.entries(ip[s].rows).map(([v, r]) => [v, pick(r, ROW)])),
      again: ip[s].again,
    };
  return out;
}

/** The separate-process rows: figures and the spans' shape, without the rounds. */
function overhead(o) {
  const table = {};
  for (const [key, rows] of Object.entries(o.table))
    table[key] = Object.fromEntries(
      Object.entries(rows).map(([v, r]) => [
        v,
        { ...pick(r, [...ROW, 'ratioToFloor', 'ratioInterval']), spans: r.spans.shape },
      ]),
    );
  return { variants: o.variants, table };
}

/** Bytes per call of each row, without the largest allocators and the rounds. */
function alloc(a) {
  return Object.fromEntries(
    Object.entries(a).map(([v, r]) => [
      v,
      { ok: r.ok.bytesPerCall, fail: r.fail.bytesPerCall, calls: r.calls },
    ]),
  );
}

/** The gateway section: settings and the per-load table, without the rounds. */
const gateway = (g) => pick(g, ['settings', 'seconds', 'telemetry', 'summary']);

/** The cold-start section: each row's figure and the profiles, without every start's time. */
const coldstart = (c) => pick(c, ['pairs', 'lines', 'rows', 'checked', 'profiles', 'load']);

/** The volume section: the per-call figures, without the runs and their decoded bodies. */
const volume = (v) => pick(v, ['settings', 'policies', 'summary']);

/** The compact record of `results`. */
export function summarize(results) {
  const known = {
    inprocess,
    overhead,
    alloc,
    gateway,
    coldstart,
    volume,
    // Their figures are in the targets' details; the rounds stay in the full record.
    scaling: undefined,
    heap: undefined,
    retry: undefined,
    collector: undefined,
    parts: undefined,
  };
  const out = {};
  for (const [key, value] of Object.entries(results)) {
    if (!(key in known)) out[key] = value;
    else if (known[key] !== undefined) out[key] = known[key](value);
  }
  return out;
}

/**
 * `previous` with the sections `fresh` ran replaced by fresh's: their figures, targets,
 * comparisons, times and dates; the rest of `previous` as it was. The date and machine are the
 * fresh run's; each section keeps the date it ran (`sectionDates`).
 */
export function mergeSummary(previous, fresh) {
  const ran = Object.keys(fresh.sectionSeconds);
  const out = { ...previous, ...fresh };
  const keep = (list) => (list ?? []).filter((x) => !ran.includes(x.section));
  out.targets = [...keep(previous.targets), ...fresh.targets];
  out.comparisons = [...keep(previous.comparisons), ...(fresh.comparisons ?? [])];
  out.sectionSeconds = { ...previous.sectionSeconds, ...fresh.sectionSeconds };
  out.sectionDates = { ...previous.sectionDates, ...fresh.sectionDates };
  out.sectionLoad = { ...previous.sectionLoad, ...fresh.sectionLoad };
  out.elapsedSeconds = Object.values(out.sectionSeconds).reduce((a, b) => a + b, 0);
  return out;
}

/**
 * The text of bench/results/summary.json: `summarize(results)` (merged into `previous` when the
 * run refreshed some sections of it), figures to five digits.
 */
export function summaryJson(results, previous) {
  const fresh = summarize(results);
  const record = previous === undefined ? fresh : mergeSummary(previous, fresh);
  const round = (_k, v) =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(5)) : v;
  return `${JSON.stringify(record, round, 1)}\n`;
}
