// The proxy soak: the mcp-failure-proxy CLI at a capped heap, serving Streamable HTTP
// (sessionful or --stateless) in front of a stdio or HTTP upstream, relays `calls` tool calls
// whose arguments are `argBytes` long, with `concurrency` in flight; after every `every` calls,
// with none in flight, its heap after GC and resident set are read (soak-probe.cjs). Used by
// bench/soak.mjs at full scale and by packages/proxy/test/soak.test.ts at a small one.
import { PATIENT_PROXY, startHelper, startMeasured } from './soak-process.mjs';
import { WireClient } from './soak-wire.mjs';
import { binPath } from '../../scripts/workspace.mjs';

const CLI = binPath('mcp-failure-proxy');
const UPSTREAM = 'bench/lib/soak-upstream.mjs';

async function openClient(url, concurrency) {
  const client = new WireClient(url, { sockets: concurrency });
  await client.initialize();
  return client;
}

/**
 * Runs one soak; resolves with `{ samples: [{ calls, heap, rss }], elapsedMs }`. Rejects when
 * a call is not answered right or the proxy dies (its stderr in the message).
 */
export async function soakProxy({
  upstream = 'stdio',
  stateless = false,
  calls,
  every,
  argBytes = 100_000,
  heapMiB = 96,
  concurrency = 8,
  renewEvery = 1000,
  plantLeakBytes = 0,
  node,
  onSample,
}) {
  const helper = upstream === 'http' ? startHelper([UPSTREAM, 'http'], /listening (\S+)\n/) : null;
  const upstreamArgs =
    helper === null
      ? ['--', process.execPath, UPSTREAM, 'stdio']
      : ['--upstream-url', await helper.line];
  const proxy = startMeasured(
    [
      CLI,
      '--listen',
      '127.0.0.1:0',
      ...PATIENT_PROXY,
      ...(stateless ? ['--stateless'] : []),
      ...upstreamArgs,
    ],
    {
      heapMiB,
      node,
      readyLine: /listening on (\S+)\n/,
      env: plantLeakBytes > 0 ? { SOAK_PLANT_LEAK_BYTES: String(plantLeakBytes) } : {},
    },
  );
  const filler = 'x'.repeat(Math.max(0, argBytes - 20));
  const samples = [];
  const started = Date.now();
  let connection;
  try {
    const url = await proxy.ready;
    connection = await openClient(url, concurrency);
    let done = 0;
    let sinceRenew = 0;
    const one = async (n) => {
      // Arguments of about argBytes bytes of JSON, distinct per call (its number first).
      const args = { data: `${n}:${filler}` };
      const result = await connection.callTool('sink', args);
      const expected = String(JSON.stringify(args.data).length);
      if (result.isError === true || result.content?.[0]?.text !== expected)
        throw new Error(`call ${n} answered ${JSON.stringify(result).slice(0, 300)}`);
    };
    while (done < calls) {
      const batch = Math.min(concurrency, calls - done, every - (done % every));
      await Promise.all(Array.from({ length: batch }, (_, i) => one(done + i)));
      done += batch;
      sinceRenew += batch;
      if (done % every === 0 || done === calls) {
        samples.push({ calls: done, ...(await proxy.measure()) });
        onSample?.(samples.at(-1));
      }
      if (sinceRenew >= renewEvery && done < calls) {
        // A sessionful client ends its session as a well-behaved one does (DELETE), so that
        // the proxy's session teardown is exercised, not just its table filled.
        await connection.close();
        connection = await openClient(url, concurrency);
        sinceRenew = 0;
      }
    }
    await connection.close();
    connection = undefined;
  } catch (error) {
    const out = await Promise.race([proxy.exited, new Promise((r) => setTimeout(r, 2000, null))]);
    throw new Error(
      `after ${samples.at(-1)?.calls ?? 0}+ calls: ${error instanceof Error ? error.message : String(error)}${exitNote(out)}`,
      { cause: error },
    );
  } finally {
    await connection?.close().catch(() => undefined);
    await proxy.stop();
    helper?.stop();
  }
  return { samples, elapsedMs: Date.now() - started };
}

/** How the measured process ended, by the line that says why (an out-of-memory crash's). */
export function exitNote(out) {
  if (out === null) return '';
  const lines = out.stderr.trim().split('\n');
  const why = lines.find((l) => /out of memory|FATAL ERROR/i.test(l)) ?? lines.at(-1) ?? '';
  return ` (it exited ${out.code ?? out.signal}: ${why.trim()})`;
}

/**
 * The scale of the soak in npm test: readings every 500 calls up to 3,000, judged from call
 * 1,000 on (the readings before include the warm-up of the process). A leak of 1 KB per call
 * adds 2 MiB over the 2,000 calls judged, 1.6x the line MAX_BYTES_PER_CALL.
 */
export const SMALL_SOAK = Object.freeze({
  calls: 3000,
  every: 500,
  warmup: 1000,
  timeoutMs: 900_000,
});
/**
 * Heap kept per call above which a soak calls it a leak: 5/8 of the 1 KB it must reveal. The
 * small soak's clean runs read up to about 400 B/call (the warm-up of the process still shows
 * between calls 1,000 and 3,000; over 100,000 calls the same proxy reads about 10 B/call), a
 * planted 1 KB/call reads that plus 1,024.
 */
export const MAX_BYTES_PER_CALL = 640;
/** RSS may not pass the reading it is judged against by more than this share. */
export const MAX_RSS_RATIO = 1.1;

/** The readings from the small soak's warm-up on. */
export function afterWarmup(samples) {
  return samples.filter((s) => s.calls >= SMALL_SOAK.warmup);
}

/** The readings in one line, in MiB. */
export function describeRun(samples) {
  const mib = (b) => (b / 2 ** 20).toFixed(2);
  return samples
    .map((s) => `${s.calls}: heap ${mib(s.heap)} MiB, RSS ${mib(s.rss)} MiB`)
    .join('; ');
}

/**
 * The largest RSS after the middle reading over the middle one. A few thousand calls into a
 * process, its allocator is still taking the pages it will keep (RSS rose 10-20 % between calls
 * 1,000 and 2,000 with the heap flat); the small soak judges RSS once it has settled, while the
 * heap after GC is judged from the first reading on.
 */
function settledRssRatio(samples) {
  const middle = Math.floor((samples.length - 1) / 2);
  const after = samples.slice(middle + 1);
  return after.length === 0 ? 1 : Math.max(...after.map((s) => s.rss)) / samples[middle].rss;
}

/** The least-squares slope of `y` over `x` of the samples: bytes kept per call. */
function slopeOf(samples, y) {
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.calls, 0) / n;
  const my = samples.reduce((a, s) => a + s[y], 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.calls - mx) * (s[y] - my);
    den += (s.calls - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * Growth from the first sample on: the heap kept per call (the slope over every sample, which
 * one noisy reading moves less than the difference of two), the last / first ratios of heap
 * and RSS, and the largest of each after the first.
 */
export function growthOf(samples) {
  const first = samples[0];
  const last = samples.at(-1);
  const rest = samples.slice(1);
  const calls = last.calls - first.calls;
  return {
    calls,
    heapBytesPerCall: slopeOf(samples, 'heap'),
    heapRatio: last.heap / first.heap,
    rssRatio: last.rss / first.rss,
    maxHeapRatio: Math.max(...rest.map((s) => s.heap)) / first.heap,
    maxRssRatio: Math.max(...rest.map((s) => s.rss)) / first.rss,
    settledRssRatio: settledRssRatio(samples),
  };
}
