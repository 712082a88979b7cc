// Bytes allocated per tool call (in-memory pair, both sides in this process), from V8's sampling
// heap profiler with collected objects kept in the profile: a figure that, unlike CPU time, does
// not depend on what else the machine runs. It also names the functions that allocate the most.
// Prints one JSON line.
import { Session } from 'node:inspector/promises';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { connectInMemory } from './server.mjs';

const N = Number(process.env.BENCH_ALLOC_CALLS ?? '3000');
const otel = setupOtel();
const variant = await installVariant(process.env.BENCH_VARIANT ?? 'omcp');
const client = await connectInMemory(variant, 'alloc');

const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');

/** Which code a profile node belongs to. */
function whereOf(url) {
  if (url === '') return 'V8 builtin';
  if (!url.includes('node_modules') && url.includes('/dist/esm/'))
    return `omcp ${url.replace(/.*\/dist\/esm\//, '')}`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg !== undefined) return pkg;
  if (url.startsWith('node:')) return 'node';
  return url.replace(/.*\/bench\//, 'bench/');
}

/** `n` calls of `tool`, `concurrency` in flight at once. */
async function calls(tool, n, concurrency) {
  if (concurrency === 1) {
    for (let i = 0; i < n; i++) await client.callTool({ name: tool, arguments: {} });
    return;
  }
  for (let done = 0; done < n; done += concurrency) {
    const wave = [];
    for (let i = 0; i < Math.min(concurrency, n - done); i++)
      wave.push(client.callTool({ name: tool, arguments: {} }));
    await Promise.all(wave);
  }
}

async function measure(tool, concurrency = 1) {
  await calls(tool, N, concurrency);
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await calls(tool, N, concurrency);
  // What the calls queued is exported inside the window, as in the CPU figures.
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const byFunction = new Map();
  let total = 0;
  const walk = (node) => {
    const f = node.callFrame;
    const where = whereOf(f.url);
    const key = `${f.functionName || '(anonymous)'} (${where})`;
    total += node.selfSize;
    byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const top = [...byFunction]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 12)
    .map(([fn, bytes]) => ({ fn, bytesPerCall: Math.round(bytes / N) }));
  return { bytesPerCall: Math.round(total / N), top };
}

const out = { variant: process.env.BENCH_VARIANT, calls: N };
// BENCH_ALLOC_LEVELS: the scaling section's levels (JSON: [{ label, tool, c }]) instead of ok/fail.
const levels = process.env.BENCH_ALLOC_LEVELS;
if (levels === undefined) {
  out.ok = await measure('ok');
  out.fail = await measure('fail');
} else for (const l of JSON.parse(levels)) out[l.label] = (await measure(l.tool, l.c)).bytesPerCall;
console.log(JSON.stringify(out));
process.exit(0);
