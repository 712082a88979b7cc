// The retry soak: soak-retry-client.mjs at a capped heap makes `calls` calls with retries over
// one connection; after every `every` calls its heap after GC and RSS are read (soak-probe.cjs).
import { createInterface } from 'node:readline';
import { startMeasured } from './soak-process.mjs';
import { exitNote } from './soak-proxy.mjs';

/** Resolves with `{ samples: [{ calls, heap, rss }], elapsedMs, retried }`. */
export async function soakRetryClient({
  calls,
  every,
  argBytes = 100_000,
  heapMiB = 96,
  concurrency = 4,
  plantLeakBytes = 0,
  node,
  onSample,
}) {
  const client = startMeasured(['bench/lib/soak-retry-client.mjs'], {
    heapMiB,
    node,
    env: {
      SOAK_ARG_BYTES: String(argBytes),
      SOAK_CONCURRENCY: String(concurrency),
      SOAK_PLANT_LEAK_BYTES: String(plantLeakBytes),
    },
  });
  const child = client.child;
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const started = Date.now();
  const samples = [];
  let retried = 0;
  try {
    for (let done = 0; done < calls;) {
      const step = Math.min(every, calls - done);
      child.stdin.write(`run ${step}\n`);
      const next = await lines.next();
      if (next.done === true)
        throw new Error(`after ${done}+ calls: the client died${exitNote(await client.exited)}`);
      const m = /^ran (\d+) retried (\d+)$/.exec(next.value);
      if (m === null) throw new Error(`the client said ${next.value}`);
      done = Number(m[1]);
      retried = Number(m[2]);
      samples.push({ calls: done, ...(await client.measure()) });
      onSample?.(samples.at(-1));
    }
    child.stdin.write('exit\n');
  } finally {
    await client.stop();
  }
  return { samples, elapsedMs: Date.now() - started, retried };
}
