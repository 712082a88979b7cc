// Issue 31, D1: large hostile bodies must not pile up in the proxy. The reproduction as filed:
// the proxy CLI at a 1 GiB heap with token auth, an attacker session sending, one at a time,
// tools/call requests whose arguments hold 1,390,000 empty arrays (4.17 MB bodies, under the
// 4 MiB limit), and a legitimate client calling in parallel. Before the fix each request stayed
// in memory (about 60 MB of parsed arrays each): RSS passed 1 GB and the proxy died of
// "JavaScript heap out of memory" after about 18 requests, and the legitimate client got
// "fetch failed". Here REQUESTS requests run; `npm run soak` runs the full 200 (docs/proxy.md).
import { describe, expect, it } from 'vitest';
import { MAX_RSS_RATIO } from '../../../bench/lib/soak-proxy.mjs';
import { HOSTILE_ARRAYS, hostileBodies } from '../../../bench/lib/soak-hostile.mjs';

/** More than the old code survived (about 18), few enough for npm test (~1 s each in CI). */
const REQUESTS = 24;
const EVERY = 4;
/** RSS allowed at each reading (after GC): half the heap cap; the old code passed 1 GB. */
const MAX_RSS = 512 * 2 ** 20;
/**
 * Peak RSS allowed, sampled while a 4.17 MB body is parsed: one parsed body in flight is about
 * 150 MiB, and a loaded machine's GC may run late (558 MiB seen in a CI run whose readings after
 * GC stayed at 180-197 MiB). Three quarters of the heap cap, below where the old code died.
 */
const MAX_PEAK_RSS = 768 * 2 ** 20;

describe.skipIf(process.platform !== 'linux')('hostile 4.17 MB bodies at a 1 GiB heap', () => {
  it(`${REQUESTS} requests of ${HOSTILE_ARRAYS} empty arrays: memory bounded, a parallel client served throughout`, async () => {
    const run = await hostileBodies({ requests: REQUESTS, every: EVERY });
    const [first, ...rest] = run.samples;
    console.log(
      `hostile: ${run.samples.map((s) => `${s.calls}: heap ${(s.heap / 2 ** 20).toFixed(1)} MiB, RSS ${(s.rss / 2 ** 20).toFixed(1)} MiB, ${s.served} served`).join('; ')}; peak RSS ${(run.peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(run.bodyBytes).toBeGreaterThan(4_170_000);
    expect(run.samples).toHaveLength(REQUESTS / EVERY);
    // Every attack request was relayed and answered (hostileBodies checks each answer). Nothing
    // of them is kept: the heap after GC stays within 10 % of its first reading. RSS moves with
    // the pages the allocator holds on to after a 4 MB request (135 to 187 MiB and back to 133
    // in one run of 24), so it is held to a bound instead, at every reading and at its peak.
    for (const sample of rest) expect(sample.heap / first!.heap).toBeLessThan(MAX_RSS_RATIO);
    for (const sample of run.samples) expect(sample.rss).toBeLessThan(MAX_RSS);
    expect(run.peakRss).toBeLessThan(MAX_PEAK_RSS);
    // Served throughout: calls answered between every two readings, and none failed.
    expect(run.legitimate.failed, run.legitimate.firstFailure).toBe(0);
    let before = 0;
    for (const sample of run.samples) {
      expect(sample.served).toBeGreaterThan(before);
      before = sample.served;
    }
  }, 1_800_000);
});
