// A deliberate slowdown of one in-process pair, for the smoke test of `npm run bench:compare`
// (BENCH_INPROC_SLOWDOWN=name=fraction): real CPU burnt inside each measured call of that pair,
// once the instrumented client's callTool has answered (burnt before it, part of the spin was
// lost in the failing scenario's measurement), sized as a fraction of that pair's own overhead
// over the baseline as measured in the same process just before. Nothing in the package's code is
// touched, so it survives any restructure, and the compare has to find it by measuring.
import { performance } from 'node:perf_hooks';

/**
 * Spins for `ns` nanoseconds of wall time (on one thread with nothing to wait for, CPU time).
 * `performance.now()` returns a number, so the spin allocates nothing: a loop of
 * `process.hrtime.bigint()` makes a BigInt per turn, kilobytes a call, and the garbage collections
 * they cost slowed the burning pair by more than the burn itself.
 */
function burn(ns) {
  if (ns <= 0) return;
  const end = performance.now() + ns / 1e6;
  while (performance.now() < end);
}

/**
 * `variant` with a burn after its client's callTool; `burn.ns` starts at 0 and is set by
 * whoever calibrates it (bench/lib/inprocess.mjs, after its warmup).
 */
export function slowedVariant(variant) {
  const state = { ns: 0 };
  return {
    state,
    variant: {
      ...variant,
      client(c, ...rest) {
        const instrumented = variant.client(c, ...rest);
        const callTool = instrumented.callTool.bind(instrumented);
        instrumented.callTool = async (...args) => {
          const result = await callTool(...args);
          burn(state.ns);
          return result;
        };
        return instrumented;
      },
    },
  };
}

/** `name=fraction` of BENCH_INPROC_SLOWDOWN, or undefined. */
export function slowdownSpec(spec) {
  if (spec === undefined || spec === '') return undefined;
  const [name, fraction] = spec.split('=');
  const f = Number(fraction);
  if (name === undefined || name === '' || !(f > 0))
    throw new Error(`BENCH_INPROC_SLOWDOWN=${spec}: expected name=fraction, e.g. b=0.2`);
  return { name, fraction: f };
}
