// A withToolRetry client over time (npm run soak runs 100,000 calls; docs/proxy.md has the
// figures): an application at a 96 MiB heap with one stdio connection, calling a tool that fails
// the first attempt of every other call, so every other call is retried once, with 100 KB
// arguments and the application's one long-lived signal on every call (as a shutdown signal is
// passed). Its heap after GC and RSS are read in the process itself (bench/lib/soak-probe.cjs).
// The scale and the line are those of the proxy soak (SMALL_SOAK, MAX_BYTES_PER_CALL), which a
// leak of 1 KB per call passes by 1.6x; the planted-leak test shows it does here too. (Before the
// fix, each attempt's request stayed reachable from the long-lived signal, and the client died
// of "JavaScript heap out of memory" within 1,000 calls.)
import { describe, expect, it } from 'vitest';
import {
  MAX_BYTES_PER_CALL,
  MAX_RSS_RATIO,
  SMALL_SOAK,
  afterWarmup,
  describeRun,
  growthOf,
} from '../../bench/lib/soak-proxy.mjs';
import { soakRetryClient } from '../../bench/lib/soak-retry.mjs';

const { calls, every, timeoutMs } = SMALL_SOAK;

describe.skipIf(process.platform !== 'linux')('withToolRetry keeps nothing per call', () => {
  it.concurrent(
    `makes ${calls} calls with retries over one connection with heap and RSS flat`,
    async () => {
      const { samples, retried } = await soakRetryClient({ calls, every });
      const measured = afterWarmup(samples);
      const growth = growthOf(measured);
      console.log(
        `retry client: ${describeRun(measured)}; ${growth.heapBytesPerCall.toFixed(0)} B/call`,
      );
      expect(retried).toBe(calls / 2);
      expect(growth.heapBytesPerCall).toBeLessThan(MAX_BYTES_PER_CALL);
      expect(growth.settledRssRatio).toBeLessThan(MAX_RSS_RATIO);
    },
    timeoutMs,
  );

  it.concurrent(
    'detects a leak of 1 KB per call at this scale (the client made to keep 1 KB per call)',
    async () => {
      const { samples } = await soakRetryClient({ calls, every, plantLeakBytes: 1024 });
      const growth = growthOf(afterWarmup(samples));
      console.log(
        `planted 1 KB/call: ${describeRun(afterWarmup(samples))}; ${growth.heapBytesPerCall.toFixed(0)} B/call`,
      );
      expect(growth.heapBytesPerCall).toBeGreaterThan(MAX_BYTES_PER_CALL);
      expect(growth.heapBytesPerCall).toBeGreaterThan(1024 * 0.75);
    },
    timeoutMs,
  );
});
