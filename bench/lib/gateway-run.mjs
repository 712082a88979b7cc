// The gateway section of `npm run bench` (BENCH_ONLY=gateway): every row of
// bench/lib/gateway-rows.mjs relays the same stdio upstream; one driver process (its own) calls
// each through one SDK client session, at 1, 64 and 512 calls in flight, the rows interleaved
// round by round (order rotating) so drift on a shared machine hits them alike. Per round and
// row: the p50 and p99 of the calls' latencies, the CPU time of the gateway's process tree
// (the upstream child included) and its RSS.
import { performance } from 'node:perf_hooks';
import { startOtlpCounter } from './otlp-counter.mjs';
import { GATEWAY_ROWS, startRow } from './gateway-rows.mjs';
import { usageOf } from './gateway-proc.mjs';
import { percentile } from './stats.mjs';

/** Calls in flight at each load level (BENCH_GATEWAY_LOADS may choose others). */
export const GATEWAY_LOADS = [1, 64, 512];

/**
 * Rounds and calls per round and level at `scale` (1: the full run). A round of a level needs
 * enough calls for its p99 to be more than the slowest call: at least 100, and 4 waves of the
 * calls in flight at 64 and 512 (at a small scale, one wave).
 */
export function gatewaySettings(scale, rounds, loads = GATEWAY_LOADS) {
  const at = (n, least) => Math.max(least, Math.round(n * scale));
  return {
    rounds: rounds ?? Math.max(2, Math.round(6 * scale)),
    loads,
    calls: Object.fromEntries(
      loads.map((c) => [c, c === 1 ? at(200, 20) : at(4 * c, Math.max(c, 32))]),
    ),
    warmup: at(500, 16),
  };
}

async function startAll(driver, telemetry) {
  const rows = {};
  for (const row of GATEWAY_ROWS) {
    const g = await startRow(row, telemetry);
    const { pid } = await driver.send({ cmd: 'open', row, endpoint: g.endpoint });
    // The direct row's "gateway" is the upstream child the driver started: what it costs alone.
    rows[row] = { ...g, measured: g.pid ?? pid };
  }
  return rows;
}

/** One measured run of `row` at `concurrency`: latencies summarised, CPU and RSS of its tree. */
async function measure(driver, rows, row, concurrency, calls) {
  const pid = rows[row].measured;
  const before = usageOf(pid);
  const r = await driver.send({ cmd: 'run', row, calls, concurrency });
  const after = usageOf(pid);
  return {
    p50: percentile(r.latencies, 0.5),
    p99: percentile(r.latencies, 0.99),
    ok: r.latencies.length,
    errors: r.errors,
    firstError: r.firstError,
    wallMs: r.wallMs,
    cpuNs: after.cpuNs - before.cpuNs,
    rss: after.rss,
    rootRss: after.rootRss,
  };
}

/**
 * Runs the section; resolves with `{ settings, rounds: { [load]: { [row]: [run, ...] } },
 * telemetry }`, where `telemetry` is what the proxy rows exported to the local receiver.
 */
export async function gatewayBench({ startWorker, scale, rounds: asked, loads, onRound }) {
  const settings = gatewaySettings(scale, asked, loads);
  const counter = await startOtlpCounter();
  const telemetry = {
    OTEL_EXPORTER_OTLP_ENDPOINT: counter.url,
    OTEL_SERVICE_NAME: 'gateway-bench-proxy',
  };
  const driver = startWorker('./lib/gateway-driver.mjs', {});
  await driver.ready;
  const started = performance.now();
  let rows;
  let result;
  try {
    rows = await startAll(driver, telemetry);
    for (const row of GATEWAY_ROWS)
      await driver.send({ cmd: 'run', row, calls: settings.warmup, concurrency: 8 });
    const out = {};
    for (let r = 0; r < settings.rounds; r++) {
      onRound?.(r);
      for (const load of settings.loads) {
        const order = GATEWAY_ROWS.map((_, i) => GATEWAY_ROWS[(i + r) % GATEWAY_ROWS.length]);
        for (const row of order)
          ((out[load] ??= {})[row] ??= []).push(
            await measure(driver, rows, row, load, settings.calls[load]),
          );
      }
    }
    for (const row of GATEWAY_ROWS) await driver.send({ cmd: 'close', row });
    result = { settings, rounds: out, seconds: Math.round((performance.now() - started) / 1000) };
  } finally {
    // Stopped before the counts are read: a proxy flushes what it still holds as it exits.
    for (const g of Object.values(rows ?? {})) await g.stop();
    await driver.send({ cmd: 'exit' }).catch(() => undefined);
    await counter.close();
  }
  return { ...result, telemetry: JSON.parse(JSON.stringify(counter.counts)) };
}
