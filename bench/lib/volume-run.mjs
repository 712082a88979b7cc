// The telemetry volume section of `npm run bench` (BENCH_ONLY=volume): OTLP bytes exported per
// call, by signal, in protobuf and JSON, for this package and the peers at their own output.
// Each (variant, encoding, scenario) runs in a process of its own (bench/lib/volume-worker.mjs,
// prototype patches are global), `repeats` times; bytes do not depend on the machine's load, so
// the processes run a few at a time.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { shippedPolicies } from './volume-sampling.mjs';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./volume-worker.mjs', import.meta.url));

/**
 * This package at its full output, this package at a client-only peer's output (client spans,
 * no trace context, no metrics), and the peers.
 */
export const VOLUME_VARIANTS = ['omcp', 'omcp-client-spans', 'autotel', 'traceloop'];
export const ENCODINGS = ['protobuf', 'json'];
export const SCENARIOS = ['ok', 'fail'];
const AT_ONCE = 3;

/** Calls per process and processes per cell at `scale`. */
export function volumeSettings(scale, calls) {
  return {
    calls: calls ?? Math.max(20, Math.round(200 * scale)),
    repeats: scale >= 0.5 ? 3 : 1,
  };
}

async function worker(variant, encoding, scenario, calls) {
  const { stdout } = await run(process.execPath, [WORKER], {
    env: {
      ...process.env,
      BENCH_VARIANT: variant,
      BENCH_VOLUME_ENCODING: encoding,
      BENCH_VOLUME_SCENARIO: scenario,
      BENCH_VOLUME_CALLS: String(calls),
    },
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

/** Runs every cell; resolves with `{ settings, runs: { [variant]: { [encoding]: { [scenario]: [...] } } } }`. */
export async function volumeBench({ scale, calls: asked, variants = VOLUME_VARIANTS }) {
  const settings = volumeSettings(scale, asked);
  const jobs = [];
  for (let r = 0; r < settings.repeats; r++)
    for (const v of variants)
      for (const e of ENCODINGS) for (const s of SCENARIOS) jobs.push([v, e, s]);
  const runs = {};
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const [v, e, s] = jobs[next++];
      const out = await worker(v, e, s, settings.calls);
      (((runs[v] ??= {})[e] ??= {})[s] ??= []).push(out);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  return { settings, policies: shippedPolicies().map((p) => `${p.name} (${p.type})`), runs };
}
