// The volume section's tables and targets, from volumeBench's runs (bench/lib/volume-run.mjs).
import { ENCODINGS, SCENARIOS } from './volume-run.mjs';
import { extraFields } from './volume-bytes.mjs';
import { attributesOf } from './volume-digest.mjs';
import { callSpans, exclusiveBytes } from './volume-facts.mjs';
import { median } from './stats.mjs';

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
/**
 * Metrics are aggregates: their bytes come per export, whatever the calls. Per call they are
 * priced at 600 calls per export (10 calls a second, one export a minute: the SDK's default
 * interval).
 */
export const CALLS_PER_METRIC_EXPORT = 600;
/** The failure rates of the tail-sampling table. */
export const FAILURE_RATES = [0.01, 0.1];
/** The row of this package that has a peer's output (client-only peers: client spans only). */
export const SAME_OUTPUT = { autotel: 'omcp', traceloop: 'omcp-client-spans' };
/**
 * The peers judged at equal information. Traceloop's comparison is printed for context: it
 * names the operation with a shorter attribute than the semantic conventions' `gen_ai.operation.name`,
 * which this package keeps.
 */
export const JUDGED_PEERS = new Set(['autotel']);

/** Per-call bytes of one cell's runs: medians, and the spread over the runs. */
function cell(runs) {
  const per = (signal) => runs.map((r) => r.counts[signal].bytes / r.calls);
  const metricExport = median(runs.map((r) => r.counts.metrics.bytes));
  const spans = per('traces');
  const logs = per('logs');
  const metrics = metricExport / CALLS_PER_METRIC_EXPORT;
  return {
    spans: median(spans),
    spansRange: [Math.min(...spans), Math.max(...spans)],
    metricExport,
    metrics,
    logs: median(logs),
    total: median(spans) + metrics + median(logs),
  };
}

const shapeOf = (digest) => {
  const kinds = { 1: 'internal', 2: 'server', 3: 'client' };
  const calls = digest.lastTraceSpans;
  return digest.lastTrace.length === 0
    ? 'no spans'
    : [...new Set(digest.lastTrace.map((s) => `${kinds[s.kind] ?? s.kind} "${s.name}"`))].join(
        ' + ',
      ) + (calls > 2 ? ` (${calls} spans share one trace)` : '');
};

function sayBytes(say, summary, variants) {
  say(
    `${pad('encoding', 10)}${pad('variant', 19)}${pad('call', 6)}${lpad('spans B', 9)}${lpad('(range)', 14)}${lpad('metrics B/export', 18)}${lpad('B/call', 8)}${lpad('logs B', 8)}${lpad('total B/call', 14)}`,
  );
  for (const e of ENCODINGS)
    for (const v of variants)
      for (const s of SCENARIOS) {
        const c = summary[v][e][s];
        say(
          `${pad(e, 10)}${pad(v, 19)}${pad(s, 6)}${lpad(c.spans.toFixed(0), 9)}${lpad(`(${c.spansRange[0].toFixed(0)}–${c.spansRange[1].toFixed(0)})`, 14)}${lpad(c.metricExport, 18)}${lpad(c.metrics.toFixed(1), 8)}${lpad(c.logs.toFixed(0), 8)}${lpad(c.total.toFixed(0), 14)}`,
        );
      }
}

/** What each variant's bytes carry: spans per call, their attributes, metrics, log records. */
function sayContents(say, runs, variants) {
  say('\nwhat the bytes carry (failing call, from the JSON bodies):');
  for (const v of variants) {
    const d = runs[v].json.fail[0].digest;
    say(`  ${v}: ${shapeOf(d)}`);
    const seen = new Set();
    for (const s of d.lastTrace.slice(0, 2)) {
      const keys = s.attributes.map((kv) => kv.key).join(', ');
      if (seen.has(keys)) continue;
      seen.add(keys);
      const events = (s.events ?? []).map((e) => e.name);
      say(
        `    span kind ${s.kind}: ${keys}${events.length > 0 ? `; events: ${events.join(', ')}` : ''}`,
      );
    }
    for (const m of d.metrics)
      say(`    metric ${m.name} (${m.points} series): ${m.attributes.join(', ')}`);
    if (d.logRecord !== null)
      say(
        `    log records: ${d.logRecords} for ${runs[v].json.fail[0].calls} calls, each: ${Object.keys(attributesOf(d.logRecord.attributes)).join(', ')}`,
      );
  }
}

/** The failing call's extra span bytes over an ok call's, field by field (this package). */
function sayExtra(say, runs, summary) {
  const fail = runs.omcp.json.fail[0].digest.lastTrace;
  const ok = runs.omcp.json.ok[0].digest.lastTrace;
  say("\nomcp: what a failing call's spans carry beyond an ok call's (bytes per call):");
  say(`  ${pad('span', 8)}${pad('field', 34)}${lpad('protobuf', 9)}${lpad('JSON', 6)}  value`);
  const listed = { protobuf: 0, json: 0 };
  const rows = [];
  for (const f of fail) {
    const o = ok.find((s) => s.kind === f.kind);
    if (o === undefined) continue;
    for (const x of extraFields(f, o)) {
      rows.push({ kind: f.kind === 3 ? 'client' : 'server', ...x });
      listed.protobuf += x.protobuf;
      listed.json += x.json;
      say(
        `  ${pad(f.kind === 3 ? 'client' : 'server', 8)}${pad(x.field, 34)}${lpad(x.protobuf, 9)}${lpad(x.json, 6)}  ${x.value.slice(0, 60)}`,
      );
    }
  }
  const measured = (e) => summary.omcp[e].fail.spans - summary.omcp[e].ok.spans;
  say(
    `  listed ${listed.protobuf} B protobuf, ${listed.json} B JSON; measured fail − ok span bytes per call: ${measured('protobuf').toFixed(0)} B protobuf, ${measured('json').toFixed(0)} B JSON (the rest: span names, values of shared attributes and durations of other lengths)`,
  );
  say(
    `  plus the failure log record: ${summary.omcp.protobuf.fail.logs.toFixed(0)} B protobuf, ${summary.omcp.json.fail.logs.toFixed(0)} B JSON per failing call (budgeted: stack traces and records per second are capped)`,
  );
  return { rows, listed, measured: { protobuf: measured('protobuf'), json: measured('json') } };
}

/** Bytes the shipped collector keeps per 1,000 calls (spans sampled, logs all kept). */
function keptPer1000(runs, summary, v, e, rate) {
  const share = (s) => runs[v].json[s][0].sampling.expectedShare;
  const c = summary[v][e];
  const spans =
    1000 * (rate * share('fail') * c.fail.spans + (1 - rate) * share('ok') * c.ok.spans);
  const logs = 1000 * (rate * c.fail.logs + (1 - rate) * c.ok.logs);
  return { spans, logs };
}

function saySampling(say, r, summary, variants) {
  say(
    `\nthrough the shipped tail-sampling policy (${r.policies.join(', ')}; evaluated in the bench on the recorded spans: no collector binary here): KB kept per 1,000 calls, spans + logs (logs are never sampled; metrics are not sampled and not counted here)`,
  );
  say(
    `${pad('encoding', 10)}${pad('variant', 19)}${FAILURE_RATES.map((f) => lpad(`${f * 100} % fail`, 18)).join('')}  kept (ok / fail traces, by policy; by the hash)`,
  );
  const out = {};
  for (const e of ENCODINGS)
    for (const v of variants) {
      const cells = FAILURE_RATES.map((f) => keptPer1000(r.runs, summary, v, e, f));
      (out[v] ??= {})[e] = cells;
      const s = (x) => r.runs[v].json[x][0].sampling;
      say(
        `${pad(e, 10)}${pad(v, 19)}${cells.map((c) => lpad(`${(c.spans / 1000).toFixed(1)} + ${(c.logs / 1000).toFixed(1)}`, 18)).join('')}  ${s('ok').keptByPolicy}/${s('ok').traces} ok, ${s('fail').keptByPolicy}/${s('fail').traces} fail; hash ${s('ok').keptByHash}/${s('ok').traces} ok`,
      );
    }
  return out;
}

/**
 * Prints the section and records its targets: per encoding and call, this package's span bytes
 * per call below each peer's at the same output (autotel: both sides traced, against `omcp`;
 * Traceloop: client spans only, against `omcp-client-spans`) and at equal information (each
 * side without the attributes whose fact the other lacks, bench/lib/volume-facts.mjs).
 */
export function reportVolume(r, { say, target, loadAverage }) {
  const variants = Object.keys(r.runs);
  say(
    `\n## Telemetry volume (OTLP/HTTP bytes on the wire per call, real exporters to a local receiver; ${r.settings.calls} calls a process, ${r.settings.repeats} process(es) a cell; metrics per call at ${CALLS_PER_METRIC_EXPORT} calls an export; load average ${loadAverage})\n`,
  );
  const summary = {};
  for (const v of variants)
    for (const e of ENCODINGS)
      for (const s of SCENARIOS) ((summary[v] ??= {})[e] ??= {})[s] = cell(r.runs[v][e][s]);
  sayBytes(say, summary, variants);
  sayContents(say, r.runs, variants);
  const extra = sayExtra(say, r.runs, summary);
  const kept = saySampling(say, r, summary, variants);
  const equal = {};
  say(
    '\nat equal information (span bytes per call minus the attributes whose fact the other side does not carry; bench/lib/volume-facts.mjs):',
  );
  for (const [peer, ours] of Object.entries(SAME_OUTPUT)) {
    if (summary[peer] === undefined) continue;
    for (const e of ENCODINGS)
      for (const s of SCENARIOS) {
        const a = summary[ours][e][s];
        const b = summary[peer][e][s];
        const mine = callSpans(r.runs[ours].json[s][0].digest);
        const their = callSpans(r.runs[peer].json[s][0].digest);
        const onlyA = exclusiveBytes(mine, their);
        const onlyB = exclusiveBytes(their, mine);
        const at = (c, only) => ({
          bytes: c.spans - only[e],
          range: c.spansRange.map((x) => x - only[e]),
        });
        const ea = at(a, onlyA);
        const eb = at(b, onlyB);
        ((equal[peer] ??= {})[e] ??= {})[s] = {
          ours: ea.bytes,
          peer: eb.bytes,
          oursOnly: { bytes: onlyA[e], facts: onlyA.facts },
          peerOnly: { bytes: onlyB[e], facts: onlyB.facts },
        };
        say(
          `  ${e}/${s}: ${ours} ${a.spans.toFixed(0)} − ${onlyA[e]} (${onlyA.facts.join(', ') || 'nothing'}) = ${ea.bytes.toFixed(0)} B; ${peer} ${b.spans.toFixed(0)} − ${onlyB[e]} (${onlyB.facts.join(', ') || 'nothing'}) = ${eb.bytes.toFixed(0)} B`,
        );
        const detail = `${ea.bytes.toFixed(0)} B vs ${eb.bytes.toFixed(0)} B at equal information (ratio ${(ea.bytes / eb.bytes).toFixed(2)}); as sent ${a.spans.toFixed(0)} B vs ${b.spans.toFixed(0)} B; all signals ${a.total.toFixed(0)} B vs ${b.total.toFixed(0)} B`;
        if (!JUDGED_PEERS.has(peer)) {
          say(`  context, ${e}/${s}: ${ours} against ${peer}: ${detail}`);
          continue;
        }
        const verdict =
          ea.range[1] < eb.range[0] ? 'PASS' : ea.range[0] >= eb.range[1] ? 'FAIL' : 'UNCLEAR';
        target(
          `volume ${e}/${s}: ${ours} span bytes per call < ${peer}'s (same output, equal information)`,
          verdict,
          detail,
        );
      }
  }
  return { cells: summary, extra, kept, equal };
}
