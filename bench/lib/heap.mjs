// Heap growth across many calls, after GC (run with --expose-gc). Prints one JSON line.
import { setImmediate as tick } from 'node:timers/promises';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { connectInMemory } from './server.mjs';

const calls = Number(process.env.BENCH_HEAP_CALLS ?? '200000');
const otel = setupOtel();
const variant = await installVariant(process.env.BENCH_VARIANT ?? 'omcp');
if (process.env.BENCH_CONFIG)
  variant.instrumentation.setConfig(JSON.parse(process.env.BENCH_CONFIG));
const client = await connectInMemory(variant, 'heap');

async function settledHeap() {
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await tick();
  }
  return process.memoryUsage().heapUsed;
}

// Every fourth call fails, so both paths are exercised.
const only = process.env.BENCH_HEAP_TOOL;
const one = (i) => client.callTool({ name: only ?? (i % 4 === 3 ? 'fail' : 'ok'), arguments: {} });
for (let i = 0; i < 10_000; i++) await one(i);
const before = await settledHeap();
const checkpoints = [];
for (let i = 0; i < calls; i++) {
  await one(i);
  if ((i + 1) % 50_000 === 0) checkpoints.push(await settledHeap());
}
const after = await settledHeap();
console.log(
  JSON.stringify({
    calls,
    before,
    after,
    growth: after - before,
    checkpoints,
    spans: otel.spans.count,
  }),
);
process.exit(0);
