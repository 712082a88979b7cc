// One process exporting over OTLP/HTTP to BENCH_OTLP_URL (a local receiver, or a closed port).
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { setTimeout as sleep, setImmediate as tick } from 'node:timers/promises';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { connectInMemory } from './server.mjs';
import { COLLECTOR_BATCH, COLLECTOR_EXPORTER, SETTLE_MS } from './collector-batch.mjs';

/** Passes every call through to the OTLP exporter, counting what it was given and what came back. */
class CountingDecorator {
  constructor(inner) {
    this.inner = inner;
    this.stats = { exports: 0, spans: 0, ok: 0, failed: 0, inFlight: 0, maxInFlight: 0 };
    /** While an array, every exported batch is pushed to it (kept alive). */
    this.capture = undefined;
  }
  export(spans, done) {
    const s = this.stats;
    s.exports++;
    s.spans += spans.length;
    s.inFlight++;
    let settled = false;
    if (this.capture !== undefined) this.capture.push(spans);
    this.inner.export(spans, (result) => {
      settled = true;
      s.inFlight--;
      if (result.code === 0) s.ok++;
      else s.failed++;
      done(result);
    });
    // An export refused at once (the concurrency limit) was never in flight.
    if (!settled) s.maxInFlight = Math.max(s.maxInFlight, s.inFlight);
  }
  forceFlush() {
    return this.inner.forceFlush();
  }
  shutdown() {
    return this.inner.shutdown();
  }
}

const exporter = new CountingDecorator(
  new OTLPTraceExporter({ url: `${process.env.BENCH_OTLP_URL}/v1/traces`, ...COLLECTOR_EXPORTER }),
);
const otel = setupOtel({ spanExporter: exporter, batch: COLLECTOR_BATCH });
const variant = await installVariant('omcp');
const client = await connectInMemory(variant, 'collector');
let total = 0;

// One event-loop turn per call, as a server reading requests from a socket has: the in-memory
// transport alone never yields, so without it no export (nor retry) could run during a round.
const call = async (i) => {
  await client.callTool({ name: i % 4 === 3 ? 'fail' : 'ok', arguments: {} });
  await tick();
};

/**
 * Memory after GC, read with no turn of the event loop after the last gc(): a retry timer firing
 * there would start an export whose garbage (and a finished export's payload) the figure would
 * count. The second of two back-to-back gc() calls first completes the previous one's sweeping,
 * so buffers that died before it are freed too.
 */
async function settledMemory() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await tick();
  }
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage();
}

const handlers = {
  /**
   * `n` calls, then SETTLE_MS idle. CPU counts both (whatever the process does for these calls,
   * exports included, lands in the window); wall time counts the calls only.
   */
  async run({ n }) {
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await call(i);
    const ns = Number(process.hrtime.bigint() - start);
    await sleep(SETTLE_MS);
    const used = process.cpuUsage(cpu);
    total += n;
    return { nsPerCall: ns / n, cpuNsPerCall: ((used.user + used.system) * 1000) / n };
  },
  async mem() {
    const m = await settledMemory();
    return {
      heap: m.heapUsed,
      arrayBuffers: m.arrayBuffers,
      calls: total,
      exporter: { ...exporter.stats },
    };
  },
  /**
   * Flushes the tracer provider (its queue is handed to the exporter, or refused by it), waits
   * until no export is left (retries included) and measures again: the process with no span held.
   */
  async release() {
    const t = Date.now();
    // With the collector unreachable the exporter refuses batches beyond its concurrency limit:
    // the flush then rejects, and the queue is empty all the same. (Not a shutdown: its rejected
    // promise would keep the error, whose stack keeps the refused batch.)
    const refused = await otel.tracerProvider.forceFlush().then(
      () => undefined,
      (error) => String(error?.message ?? error),
    );
    while (exporter.stats.inFlight > 0) await sleep(100);
    return { ...(await handlers.mem()), flushMs: Date.now() - t, refused };
  },
  /**
   * What one queued or in-flight span costs: heap with four queues' worth of exported batches
   * kept alive minus heap without them, per span (the median of three tries; all three are
   * returned); and the largest serialized size of those batches (an off-heap ArrayBuffer).
   */
  async probe() {
    const tries = [];
    let payloadBytes = 0;
    for (let t = 0; t < 3; t++) {
      exporter.capture = [];
      const held = () => exporter.capture.reduce((sum, b) => sum + b.length, 0);
      for (let i = 0; held() < 4 * COLLECTOR_BATCH.maxQueueSize; i++) {
        await call(i);
        if (i > 100 * COLLECTOR_BATCH.maxQueueSize) throw new Error('probe: nothing exported');
      }
      await sleep(SETTLE_MS);
      let batches = exporter.capture;
      exporter.capture = undefined;
      const kept = (await settledMemory()).heapUsed;
      const spans = batches.reduce((sum, b) => sum + b.length, 0);
      for (const b of batches)
        payloadBytes = Math.max(payloadBytes, JsonTraceSerializer.serializeRequest(b).byteLength);
      batches = undefined;
      tries.push((kept - (await settledMemory()).heapUsed) / spans);
    }
    tries.sort((x, y) => x - y);
    return { spanBytes: tries[1], tries, payloadBytes };
  },
  async exit() {
    setTimeout(() => process.exit(0), 20);
    return {};
  },
};
process.on('message', (msg) => {
  handlers[msg.cmd](msg).then(
    (result) => process.send({ id: msg.id, result }),
    (error) => process.send({ id: msg.id, error: String(error?.stack ?? error) }),
  );
});
process.send({ ready: true });
