// One benchmark process for one variant, driven by bench/run.mjs over IPC. It holds an
// in-memory client/server pair, a client of a stdio child running the same variant, and (for the
// variants that support SDK 2.x) a client of a Streamable HTTP child in the 2026-07-28 revision's
// stateless mode. BENCH_WORKER_TRANSPORTS names the transports it connects.
import { fork } from 'node:child_process';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
} from '@modelcontextprotocol/client';
import { setupOtel, slim } from './otel.mjs';
import { HTTP_VARIANTS, installVariant } from './variants.mjs';
import { connectInMemory } from './server.mjs';

const name = process.env.BENCH_VARIANT ?? 'baseline';
const transports = (process.env.BENCH_WORKER_TRANSPORTS ?? 'memory,stdio,http').split(',');
const otel = setupOtel();
const variant = await installVariant(name);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

const clients = {};
clients.memory = await connectInMemory(variant, 'bench-client');

if (transports.includes('stdio')) {
  clients.stdio = variant.client(new Client({ name: 'bench-client', version: '1.0.0' }), 'pipe');
  await clients.stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      // BENCH_CHILD_NODE_ARGS: node options for the stdio child, e.g. to profile it (--cpu-prof).
      args: [...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ') ?? []), here('./stdio-server.mjs')],
      env: { ...process.env, BENCH_VARIANT: name },
      stderr: 'inherit',
    }),
  );
}

/** The HTTP child, over IPC: its port, then its CPU time and spans on request. */
let httpChild;
if (transports.includes('http') && HTTP_VARIANTS.includes(name)) {
  const child = fork(here('./http-server.mjs'), { env: { ...process.env, BENCH_VARIANT: name } });
  let next = 0;
  const pending = new Map();
  const { port } = await new Promise((resolve) => {
    child.on('message', (m) => {
      if (m.port !== undefined) return resolve(m);
      pending.get(m.id)(m.result);
      pending.delete(m.id);
    });
  });
  httpChild = {
    send: (cmd) =>
      new Promise((resolve) => {
        pending.set(++next, resolve);
        child.send({ cmd, id: next });
      }),
  };
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  clients.http = variant.client(
    new V2Client(
      { name: 'bench-client', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    ),
    'tcp',
    { address: '127.0.0.1', port },
  );
  await clients.http.connect(new V2HttpTransport(url));
}

async function call(client, tool) {
  const r = await client.callTool({ name: tool, arguments: {} });
  if ((r.isError === true) !== (tool === 'fail')) throw new Error(`unexpected result of ${tool}`);
}

/** CPU time of the server child of `transport`, in µs (read outside the timed loop). */
async function childCpu(transport) {
  if (transport === 'http') return httpChild.send('cpu');
  const r = await clients.stdio.callTool({ name: 'bench_cpu', arguments: {} });
  return Number(r.content[0].text);
}
const hasChild = (transport) => transport === 'stdio' || transport === 'http';

/** Garbage collections of this process (start, duration in ms), to price GC per call. */
const gcs = [];
let gcObserver;
/** Starts keeping this process's GC entries (the scaling section asks; others keep none). */
function observeGc() {
  gcObserver ??= new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push(e.startTime, e.duration);
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}

/** ns of GC that started between `from` and `to` (performance.now() times), then forgets. */
async function gcBetween(from, to) {
  await sleep(5); // the observer's entries arrive a few turns later
  let ms = 0;
  for (let i = 0; i < gcs.length; i += 2) if (gcs[i] >= from && gcs[i] < to) ms += gcs[i + 1];
  gcs.length = 0;
  return ms * 1e6;
}

/** `n` calls of `tool`, `concurrency` of them in flight at once (1: one after the other). */
async function calls(client, tool, n, concurrency) {
  if (concurrency === 1) {
    for (let i = 0; i < n; i++) await call(client, tool);
    return;
  }
  const wave = [];
  for (let done = 0; done < n; done += concurrency) {
    wave.length = 0;
    for (let i = 0; i < Math.min(concurrency, n - done); i++) wave.push(call(client, tool));
    await Promise.all(wave);
  }
}

/**
 * Runs `n` calls of the scenario's tool (`scenario`: ok, fail, or a payload tool), `concurrency`
 * in flight at once (default 1, sequential). CPU time (this process plus, over stdio, the server child) is
 * the main figure: on a shared 2-core machine, wall time also measures the neighbours.
 */
async function run({ transport, scenario, n, warmup, concurrency = 1, gc = false }) {
  const client = clients[transport];
  if (gc) observeGc();
  await calls(client, scenario, warmup, concurrency);
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  const childBefore = hasChild(transport) ? await childCpu(transport) : 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const from = performance.now();
  await calls(client, scenario, n, concurrency);
  // Export is part of the cost: flush what these calls queued before stopping the clocks.
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  const ns = Number(process.hrtime.bigint() - start);
  const used = process.cpuUsage(cpu);
  const to = performance.now();
  const childAfter = hasChild(transport) ? await childCpu(transport) : 0;
  const cpuUs = used.user + used.system + (childAfter - childBefore);
  return {
    nsPerCall: ns / n,
    cpuNsPerCall: (cpuUs * 1000) / n,
    childCpuNsPerCall: ((childAfter - childBefore) * 1000) / n,
    // This process's GC time (the in-memory pair's both sides), outside the CPU window's reads.
    gcNsPerCall: gc ? (await gcBetween(from, to)) / n : undefined,
  };
}

/** Which of the expected spans a variant produced for one ok and one failing call. */
async function check({ transport }) {
  const client = clients[transport];
  await otel.tracerProvider.forceFlush();
  otel.spans.reset();
  if (transport === 'stdio') await client.callTool({ name: 'bench_reset', arguments: {} });
  if (transport === 'http') await httpChild.send('reset');
  await otel.tracerProvider.forceFlush();
  otel.spans.reset();
  await call(client, 'ok');
  const failed = await client.callTool({ name: 'fail', arguments: {} });
  await otel.tracerProvider.forceFlush();
  let spans = otel.spans.ring.map(slim);
  if (transport === 'stdio') {
    const r = await client.callTool({ name: 'bench_stats', arguments: {} });
    spans = spans.concat(JSON.parse(r.content[0].text).spans);
  }
  if (transport === 'http') spans = spans.concat((await httpChild.send('stats')).spans);
  const out = {};
  for (const tool of ['ok', 'fail']) {
    const mine = spans.filter((s) => new RegExp(`\\b${tool}\\b`).test(s.name));
    const clientSpan = mine.find((s) => s.kind === 2);
    const serverSpan = mine.find((s) => s.kind === 1);
    let shape = 'none';
    if (clientSpan && serverSpan) {
      shape =
        serverSpan.traceId !== clientSpan.traceId
          ? 'client+server, separate traces'
          : serverSpan.parentSpanId === clientSpan.spanId
            ? 'client+server'
            : 'client+server, same trace, not parent';
    } else if (clientSpan) shape = 'client only';
    else if (serverSpan) shape = 'server only';
    out[tool] = {
      shape,
      spans: mine.length,
      clientName: clientSpan?.name,
      serverName: serverSpan?.name,
      clientError: clientSpan ? clientSpan.status === 2 : undefined,
      serverError: serverSpan ? serverSpan.status === 2 : undefined,
      clientAttributes: clientSpan?.attributes,
      serverAttributes: serverSpan?.attributes,
    };
  }
  // The failure object the failing call's result carries, and whether its correlationId is the
  // client span's trace ID.
  const failure = failed._meta?.['io.modelcontextprotocol/toolFailure'];
  const clientFail = spans.find((s) => s.kind === 2 && /\bfail\b/.test(s.name));
  out.fail.failureObject =
    failure === undefined
      ? undefined
      : {
          class: failure.class,
          code: failure.code,
          correlationIsTraceId: failure.correlationId === clientFail?.traceId,
        };
  // In-memory both sides record into this process: the metrics with a tools/call point.
  if (transport === 'memory') {
    const { resourceMetrics } = await otel.reader.collect();
    out.metrics = resourceMetrics.scopeMetrics
      .flatMap((sm) => sm.metrics)
      .filter((m) =>
        m.dataPoints.some(
          (d) =>
            d.attributes['mcp.method.name'] === 'tools/call' ||
            d.attributes['gen_ai.tool.name'] === 'fail',
        ),
      )
      .map((m) => m.descriptor.name)
      .sort();
  }
  return out;
}

process.on('message', (msg) => {
  const handlers = {
    run,
    check,
    exit: async () => {
      await clients.memory.close();
      await clients.stdio?.close();
      if (clients.http !== undefined) {
        await clients.http.close();
        await httpChild.send('exit');
      }
      setTimeout(() => process.exit(0), 50);
      return {};
    },
  };
  handlers[msg.cmd](msg).then(
    (result) => process.send({ id: msg.id, result }),
    (error) => process.send({ id: msg.id, error: String(error?.stack ?? error) }),
  );
});
// Gone with the orchestrator: a worker left behind would hold its server children.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
