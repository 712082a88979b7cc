// The gateway section's table and targets, from gatewayBench's rounds (bench/lib/gateway-run.mjs).
import { BRIDGES, GATEWAY_ROWS, RELAY, TRACING_LIMIT_MS } from './gateway-rows.mjs';
import { differenceInterval, median, ratioInterval } from './stats.mjs';

const ms = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const mib = (b) => (b / 2 ** 20).toFixed(0);
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

/** One row at one load: medians over rounds, added latency over direct with intervals. */
function summarise(runs, direct) {
  const calls = runs.reduce((a, r) => a + r.ok + r.errors, 0);
  const errors = runs.reduce((a, r) => a + r.errors, 0);
  const cpuS = runs.reduce((a, r) => a + r.cpuNs, 0) / 1e9;
  const added = (p) => ({
    value: median(runs.map((r, i) => r[p] - direct[i][p])),
    interval: differenceInterval(
      runs.map((r) => r[p]),
      direct.map((r) => r[p]),
    ),
  });
  return {
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    added50: added('p50'),
    added99: added('p99'),
    // /proc counts CPU time in 10 ms ticks: a run that used less reads 0, and has no figure.
    callsPerCpuSecond: cpuS > 0 ? (calls - errors) / cpuS : NaN,
    rss: Math.max(...runs.map((r) => r.rss)),
    rootRss: Math.max(...runs.map((r) => r.rootRss)),
    calls,
    errors,
    firstError: runs.find((r) => r.firstError !== undefined)?.firstError,
  };
}

/** Our row's pN over a bridge's, per round: the median ratio and its interval. */
function versus(ours, theirs, p) {
  const x = ours.map((r) => r[p]);
  const y = theirs.map((r) => r[p]);
  const zero = x.map(() => 0);
  return { ratio: median(x) / median(y), interval: ratioInterval(x, y, zero, zero) };
}

/**
 * Prints the table of each load and records the targets: at each load, the untraced relay has
 * p50 and p99 no worse than either bridge's (a bridge that failed calls at a load is named and
 * left out of that comparison; the relay failing any call fails the target), and with one call in
 * flight tracing adds at most {@link TRACING_LIMIT_MS} ms to its p50.
 */
export function reportGateway(r, { say, target, verdictOf, loadAverage }) {
  say(
    `\n## The gateway (Streamable HTTP in front of one stdio server; one SDK client session per row in a driver process; ${r.settings.rounds} rounds, rows interleaved; load average ${loadAverage})\n`,
  );
  const out = {};
  for (const [load, rows] of Object.entries(r.rounds)) {
    const n = r.settings.calls[load];
    say(`${load} in flight (${n} calls a round):`);
    say(
      `  ${pad('row', 20)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('+p50 ms (95% interval)', 28)}${lpad('+p99 ms (95% interval)', 28)}${lpad('calls/CPU-s', 13)}${lpad('RSS MiB', 9)}${lpad('tree', 6)}  errors`,
    );
    out[load] = {};
    for (const row of GATEWAY_ROWS) {
      const s = summarise(rows[row], rows.direct);
      out[load][row] = s;
      const add = (a) =>
        row === 'direct' ? '-' : `${ms(a.value)} (${ms(a.interval[0])}–${ms(a.interval[1])})`;
      say(
        `  ${pad(row, 20)}${lpad(ms(s.p50), 9)}${lpad(ms(s.p99), 9)}${lpad(add(s.added50), 28)}${lpad(add(s.added99), 28)}${lpad(Number.isFinite(s.callsPerCpuSecond) ? s.callsPerCpuSecond.toFixed(0) : '-', 13)}${lpad(mib(s.rootRss), 9)}${lpad(mib(s.rss), 6)}  ${s.errors === 0 ? 'none' : `${s.errors} of ${s.calls}: ${s.firstError}`}`,
      );
    }
    gatewayTarget(load, RELAY, rows, out[load], target, verdictOf);
    if (load === '1') tracingTarget(rows, out[load], target, verdictOf);
  }
  return out;
}

/** The traced relay's p50 over the untraced one's, per round, with its interval. */
function tracingTarget(rows, summary, target, verdictOf) {
  const name = `gateway, 1 in flight: tracing adds ≤ ${TRACING_LIMIT_MS} ms to the relay's p50`;
  if (summary.omcp.errors > 0)
    return target(name, 'FAIL', `${summary.omcp.errors} of ${summary.omcp.calls} calls failed`);
  const traced = rows.omcp.map((r) => r.p50);
  const untraced = rows[RELAY].map((r) => r.p50);
  const added = median(traced.map((x, i) => x - untraced[i]));
  const interval = differenceInterval(traced, untraced);
  target(
    name,
    verdictOf(interval, TRACING_LIMIT_MS),
    `${added >= 0 ? '+' : ''}${added.toFixed(2)} ms (95% interval ${interval.map((x) => x.toFixed(2)).join(' to ')})`,
  );
}

function gatewayTarget(load, row, rows, summary, target, verdictOf) {
  const name = `gateway, ${load} in flight: ${row} p50 and p99 ≤ both bridges'`;
  if (summary[row].errors > 0)
    return target(name, 'FAIL', `${summary[row].errors} of ${summary[row].calls} calls failed`);
  const verdicts = [];
  const parts = [];
  for (const bridge of BRIDGES) {
    if (summary[bridge].errors > 0) {
      parts.push(
        `${bridge} failed ${summary[bridge].errors} of ${summary[bridge].calls} calls: not compared`,
      );
      continue;
    }
    for (const p of ['p50', 'p99']) {
      const v = versus(rows[row], rows[bridge], p);
      verdicts.push(verdictOf(v.interval, 1));
      parts.push(
        `${p} ${v.ratio.toFixed(2)}× ${bridge} (${v.interval[0].toFixed(2)}–${v.interval[1].toFixed(2)})`,
      );
    }
  }
  const verdict = verdicts.includes('FAIL')
    ? 'FAIL'
    : verdicts.length > 0 && verdicts.every((v) => v === 'PASS')
      ? 'PASS'
      : verdicts.length === 0
        ? 'PASS'
        : 'UNCLEAR';
  target(name, verdict, parts.join('; '));
}
