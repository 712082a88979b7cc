// Orchestrates the collector comparison: one worker exporting to a local receiver, one to a
// closed port, interleaved rounds; then the unreachable one's heap as calls pile up.
import { createServer } from 'node:http';
import { COLLECTOR_BATCH } from './collector-batch.mjs';

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

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
  const n = Math.round(2000 * scale);
  for (const k of ['reachable', 'unreachable']) await w[k].send({ cmd: 'run', n });
  const ratios = [];
  const wallRatios = [];
  const cpu = { reachable: [], unreachable: [] };
  const checkpoints = [await w.unreachable.send({ cmd: 'mem' })];
  for (let r = 0; r < 16; r++) {
    const order = r % 2 ? ['reachable', 'unreachable'] : ['unreachable', 'reachable'];
    const got = {};
    for (const k of order) got[k] = await w[k].send({ cmd: 'run', n });
    cpu.reachable.push(got.reachable.cpuNsPerCall);
    cpu.unreachable.push(got.unreachable.cpuNsPerCall);
    ratios.push(got.unreachable.cpuNsPerCall / got.reachable.cpuNsPerCall);
    wallRatios.push(got.unreachable.nsPerCall / got.reachable.nsPerCall);
    checkpoints.push(await w.unreachable.send({ cmd: 'mem' }));
  }
  checkpoints.push(await w.unreachable.send({ cmd: 'mem' }));
  for (const k of ['reachable', 'unreachable']) await w[k].send({ cmd: 'exit' });
  await new Promise((r) => receiver.close(r));
  // The queue and the exporter's in-flight batches fill during the first half; past that,
  // heap must not grow with the calls.
  const late = checkpoints.slice(Math.floor(checkpoints.length / 2));
  const lateGrowth = Math.max(...late.map((c) => c.heap)) - late[0].heap;
  return {
    queue: COLLECTOR_BATCH,
    reachableNs: median(cpu.reachable),
    unreachableNs: median(cpu.unreachable),
    ratio: median(ratios),
    wallRatio: median(wallRatios),
    received,
    checkpoints,
    lateGrowth,
    lateCalls: late[late.length - 1].calls - late[0].calls,
    bounded: lateGrowth < 4 * 2 ** 20,
  };
}
