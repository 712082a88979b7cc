// `npm run soak`: memory over time at full scale. Each scenario runs in processes of its own
// at a 96 MiB V8 heap and reads heap after GC and RSS every SOAK_EVERY calls (10,000); it holds
// when both stay within 10 % of their value at the first reading, up to SOAK_CALLS (100,000).
// The figures go to bench/results/soak.json (merged by scenario) and soak.txt, and docs/proxy.md
// ("Memory over time") quotes them. SOAK_ONLY=a,b picks scenarios; SOAK_PARALLEL=n runs n at once.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { growthOf, soakProxy } from './lib/soak-proxy.mjs';

const calls = Number(process.env.SOAK_CALLS ?? '100000');
const every = Number(process.env.SOAK_EVERY ?? '10000');
const parallel = Math.max(1, Number(process.env.SOAK_PARALLEL ?? '1'));
const hostileCount = Number(process.env.SOAK_HOSTILE_REQUESTS ?? '200');
const LIMIT = 1.1;
const MiB = 2 ** 20;

/** Each reading as it is taken, on stderr: progress of a run that takes a while. */
const progress = (name) => (s) =>
  console.error(
    `${new Date().toISOString()} ${name} ${s.calls}: heap ${(s.heap / MiB).toFixed(2)} MiB, RSS ${(s.rss / MiB).toFixed(1)} MiB`,
  );
const proxyRun = (name, upstream, stateless) =>
  soakProxy({ upstream, stateless, calls, every, onSample: progress(name) });

const SCENARIOS = {
  'proxy-stdio-sessionful': () => proxyRun('proxy-stdio-sessionful', 'stdio', false),
  'proxy-stdio-stateless': () => proxyRun('proxy-stdio-stateless', 'stdio', true),
  'proxy-http-sessionful': () => proxyRun('proxy-http-sessionful', 'http', false),
  'proxy-http-stateless': () => proxyRun('proxy-http-stateless', 'http', true),
  'retry-client': async () =>
    (await import('./lib/soak-retry.mjs')).soakRetryClient({
      calls,
      every,
      onSample: progress('retry-client'),
    }),
  'proxy-hostile-bodies': async () =>
    (await import('./lib/soak-hostile.mjs')).hostileBodies({
      requests: hostileCount,
      every: 20,
      onSample: progress('proxy-hostile-bodies'),
    }),
};

const only = process.env.SOAK_ONLY?.split(',') ?? Object.keys(SCENARIOS);
for (const name of only)
  if (!(name in SCENARIOS)) throw new Error(`SOAK_ONLY: no scenario "${name}"`);

const out = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(out, { recursive: true });
const jsonPath = `${out}soak.json`;

/** One line of the table: the first and last readings, their ratios, and the verdict. */
function lineOf(name, entry) {
  if (entry.error !== undefined) return `${name.padEnd(24)} FAILED: ${entry.error}`;
  const first = entry.samples[0];
  const last = entry.samples.at(-1);
  const g = entry.growth;
  const verdict = g.maxHeapRatio <= LIMIT && g.maxRssRatio <= LIMIT ? 'holds' : 'FAILS';
  return (
    `${name.padEnd(24)} ${String(first.calls).padStart(7)}: heap ${(first.heap / MiB).toFixed(1)} MiB, ` +
    `RSS ${(first.rss / MiB).toFixed(1)} MiB; ${String(last.calls).padStart(7)}: heap ` +
    `${(last.heap / MiB).toFixed(1)} MiB, RSS ${(last.rss / MiB).toFixed(1)} MiB; ratio heap ` +
    `${g.heapRatio.toFixed(3)} (max ${g.maxHeapRatio.toFixed(3)}), RSS ${g.rssRatio.toFixed(3)} ` +
    `(max ${g.maxRssRatio.toFixed(3)}); ${(entry.elapsedMs / 1000).toFixed(0)} s; ${verdict}`
  );
}

async function run(name) {
  const t = Date.now();
  try {
    const { samples, elapsedMs, ...extra } = await SCENARIOS[name]();
    return { name, node: process.version, samples, elapsedMs, growth: growthOf(samples), ...extra };
  } catch (error) {
    return { name, node: process.version, elapsedMs: Date.now() - t, error: String(error) };
  }
}

const queue = [...only];
const results = [];
await Promise.all(
  Array.from({ length: Math.min(parallel, queue.length) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const entry = await run(name);
      console.log(lineOf(name, entry));
      results.push(entry);
      const all = existsSync(jsonPath) ? JSON.parse(readFileSync(jsonPath, 'utf8')) : {};
      all[name] = { ...entry, date: new Date().toISOString() };
      writeFileSync(jsonPath, `${JSON.stringify(all, null, 2)}\n`);
    }
  }),
);
const all = JSON.parse(readFileSync(jsonPath, 'utf8'));
writeFileSync(
  `${out}soak.txt`,
  `${Object.entries(all)
    .map(([name, entry]) => lineOf(name, entry))
    .join('\n')}\n`,
);
process.exitCode = results.some((r) => r.error !== undefined || lineOf(r.name, r).endsWith('FAILS'))
  ? 1
  : 0;
