// Orchestrates the collector comparison: one worker exporting to a local receiver, one to a
// closed port, both with the documented exporter settings (collector-batch.mjs).
//
// 1. CPU: interleaved rounds, no forced GC anywhere in this phase. Each round's CPU window holds
//    the calls and a settle time after them, so export work that a round causes is counted in
//    that round (the reachable worker exports the tail of its queue after the calls).
// 2. Memory: more interleaved rounds, each followed by a checkpoint (forced GCs) in both workers.
//    A forced GC makes the next round recompile what it dropped, so these rounds are not timed.
//    The unreachable worker's highest checkpoint, over itself once flushed with no export left,
//    is compared with the bound the settings imply (queue + concurrencyLimit batches).
import { createServer } from 'node:http';
import { COLLECTOR_BATCH, COLLECTOR_EXPORTER, SETTLE_MS } from './collector-batch.mjs';

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

const CPU_ROUNDS = 16;
const MEM_ROUNDS = 18;
const KINDS = ['reachable', 'unreachable'];
const memOf = (c) => c.heap + c.arrayBuffers;

export async function collectorBench({ startWorker, median, scale }) {
  let received = 0;
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received += body.split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await listen(receiver);
  // A port that was just free and is now closed: connections are refused.
  const closed = createServer();
  const closedPort = await listen(closed);
  await new Promise((r) => closed.close(r));

  const w = {
    reachable: startWorker(
      './lib/collector-worker.mjs',
      { BENCH_OTLP_URL: `http://127.0.0.1:${port}` },
      ['--expose-gc'],
    ),
    unreachable: startWorker(
      './lib/collector-worker.mjs',
      { BENCH_OTLP_URL: `http://127.0.0.1:${closedPort}` },
      ['--expose-gc'],
    ),
  };
  await w.reachable.ready;
  await w.unreachable.ready;
  const started = Date.now();
  const n = Math.round(2000 * scale);
  // The probe forces GCs, so it comes before the warm-up round.
  const probe = await w.reachable.send({ cmd: 'probe' });
  for (const k of KINDS) await w[k].send({ cmd: 'run', n });

  const ratios = [];
  const wallRatios = [];
  const cpu = { reachable: [], unreachable: [] };
  for (let r = 0; r < CPU_ROUNDS; r++) {
    const order = r % 2 ? KINDS : [...KINDS].reverse();
    const got = {};
    for (const k of order) got[k] = await w[k].send({ cmd: 'run', n });
    for (const k of KINDS) cpu[k].push(got[k].cpuNsPerCall);
    ratios.push(got.unreachable.cpuNsPerCall / got.reachable.cpuNsPerCall);
    wallRatios.push(got.unreachable.nsPerCall / got.reachable.nsPerCall);
  }

  const checkpoints = { reachable: [], unreachable: [] };
  for (let r = 0; r < MEM_ROUNDS; r++) {
    const order = r % 2 ? KINDS : [...KINDS].reverse();
    for (const k of order) await w[k].send({ cmd: 'run', n });
    for (const k of KINDS) checkpoints[k].push(await w[k].send({ cmd: 'mem' }));
  }
  const seconds = (Date.now() - started) / 1000;
  const released = await w.unreachable.send({ cmd: 'release' });
  for (const k of KINDS) await w[k].send({ cmd: 'exit' });
  await new Promise((r) => receiver.close(r));

  // The bound: a full queue plus `concurrencyLimit` batches in the exporter (spans and their
  // serialized request), over what the same process holds once flushed with no export left.
  // Its uncertainty, from this run's own figures: the spread of the per-span probe over the
  // bound's spans, plus the spread of the reachable process's checkpoints (a process holding
  // nothing at them).
  const { maxQueueSize: queue, maxExportBatchSize: batch } = COLLECTOR_BATCH;
  const limit = COLLECTOR_EXPORTER.concurrencyLimit;
  const boundSpans = queue + limit * batch;
  const bound = boundSpans * probe.spanBytes + limit * probe.payloadBytes;
  const rea = checkpoints.reachable.map(memOf);
  const uncertainty =
    boundSpans * (Math.max(...probe.tries) - Math.min(...probe.tries)) +
    (Math.max(...rea) - Math.min(...rea));
  const un = checkpoints.unreachable.map(memOf);
  const maxExtra = Math.max(...un) - memOf(released);
  // The check means something only if the run reached the bound's state: as many exports in
  // flight as the limit allows (the memory rounds come after the unreachable worker has been
  // failing for the whole CPU phase).
  const maxInFlight =
    checkpoints.unreachable[checkpoints.unreachable.length - 1].exporter.maxInFlight;
  const third = Math.floor(MEM_ROUNDS / 3);
  const thirds = [0, 1, 2].map((i) => Math.max(...un.slice(i * third, (i + 1) * third)));
  return {
    batchSettings: COLLECTOR_BATCH,
    exporterSettings: COLLECTOR_EXPORTER,
    settleMs: SETTLE_MS,
    calls: n,
    rounds: { cpu: CPU_ROUNDS, memory: MEM_ROUNDS },
    seconds,
    reachableNs: median(cpu.reachable),
    unreachableNs: median(cpu.unreachable),
    cpu,
    ratio: median(ratios),
    wallRatio: median(wallRatios),
    received,
    probe,
    checkpoints,
    released,
    bound: { spans: boundSpans, bytes: bound, uncertainty, maxExtra, maxInFlight, limit, thirds },
    exporter: {
      reachable: checkpoints.reachable[checkpoints.reachable.length - 1].exporter,
      unreachable: checkpoints.unreachable[checkpoints.unreachable.length - 1].exporter,
    },
    bounded: maxInFlight === limit && maxExtra <= bound + uncertainty,
  };
}
