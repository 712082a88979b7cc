// The process the retry soak measures: an application with one MCP client over stdio (one
// connection, to soak-upstream.mjs), wrapped with withToolRetry, calling the "flaky" tool, which
// fails every other call with a retryable reliability failure, so every other call is retried
// once. Every call passes the application's one long-lived signal (as a shutdown signal is
// passed), with arguments of SOAK_ARG_BYTES. Driven over stdin: "run N" makes N more calls,
// SOAK_CONCURRENCY at once, then prints "ran <total>"; "exit" ends it.
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { withToolRetry } from '../../dist/esm/retry/index.js';

const argBytes = Number(process.env.SOAK_ARG_BYTES ?? '100000');
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? '4');
const filler = 'x'.repeat(Math.max(0, argBytes - 20));
const plant = Number(process.env.SOAK_PLANT_LEAK_BYTES ?? '0');
const kept = [];

const client = new Client({ name: 'soak-retry-client', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ['bench/lib/soak-upstream.mjs', 'stdio'],
    stderr: 'inherit',
  }),
);
const retrying = withToolRetry(client, {
  maxAttempts: 3,
  retryBudget: false,
  backoff: { initialDelayMs: 0, maxDelayMs: 0, jitter: 'none' },
});
// The engine learns from the listing that "flaky" is idempotent, so it may retry it.
await retrying.listTools();
const shutdown = new globalThis.AbortController();
let total = 0;
let retried = 0;

async function one(n) {
  const result = await retrying.callToolWithRetry(
    { name: 'flaky', arguments: { data: `${n}:${filler}` } },
    undefined,
    { signal: shutdown.signal },
  );
  if (result.outcome !== 'success') throw new Error(`call ${n}: ${result.outcome}`);
  if (result.attempts > 1) retried += 1;
  // As soak-probe.cjs plants it: plant / 8 doubles, exactly `plant` bytes of heap each.
  if (plant > 0) kept.push(new Array(Math.ceil(plant / 8)).fill(kept.length + 0.5));
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, count] = line.split(' ');
  if (command === 'exit') break;
  let left = Number(count);
  while (left > 0) {
    const batch = Math.min(concurrency, left);
    await Promise.all(Array.from({ length: batch }, (_, i) => one(total + i)));
    total += batch;
    left -= batch;
  }
  process.stdout.write(`ran ${total} retried ${retried}\n`);
}
await client.close();
