// One benchmark process for one variant, driven by bench/run.mjs over IPC. It holds an
// in-memory client/server pair and a client of a stdio child running the same variant.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { setupOtel, slim } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { connectInMemory } from './server.mjs';

const name = process.env.BENCH_VARIANT ?? 'baseline';
const otel = setupOtel();
const variant = await installVariant(name);

const memory = await connectInMemory(variant, 'bench-client');

// The scaling section runs in-memory only and needs no stdio child.
let stdio;
if (process.env.BENCH_NO_STDIO !== '1') {
  stdio = variant.client(new Client({ name: 'bench-client', version: '1.0.0' }), 'pipe');
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [fileURLToPath(new URL('./stdio-server.mjs', import.meta.url))],
      env: { ...process.env, BENCH_VARIANT: name },
      stderr: 'inherit',
    }),
  );
}
const clients = { memory, stdio };

async function call(client, tool) {
  const r = await client.callTool({ name: tool, arguments: {} });
  if ((r.isError === true) !== (tool === 'fail')) throw new Error(`unexpected result of ${tool}`);
}

/** CPU time of the stdio child, in µs (read outside the timed loop). */
async function childCpu() {
  const r = await stdio.callTool({ name: 'bench_cpu', arguments: {} });
  return Number(r.content[0].text);
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
async function run({ transport, scenario, n, warmup, concurrency = 1 }) {
  const client = clients[transport];
  await calls(client, scenario, warmup, concurrency);
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  const childBefore = transport === 'stdio' ? await childCpu() : 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await calls(client, scenario, n, concurrency);
  // Export is part of the cost: flush what these calls queued before stopping the clocks.
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  const ns = Number(process.hrtime.bigint() - start);
  const used = process.cpuUsage(cpu);
  const childAfter = transport === 'stdio' ? await childCpu() : 0;
  const cpuUs = used.user + used.system + (childAfter - childBefore);
  return {
    nsPerCall: ns / n,
    cpuNsPerCall: (cpuUs * 1000) / n,
    childCpuNsPerCall: ((childAfter - childBefore) * 1000) / n,
  };
}

/** Which of the expected spans a variant produced for one ok and one failing call. */
async function check({ transport }) {
  const client = clients[transport];
  await otel.tracerProvider.forceFlush();
  otel.spans.reset();
  if (transport === 'stdio') await client.callTool({ name: 'bench_reset', arguments: {} });
  await otel.tracerProvider.forceFlush();
  otel.spans.reset();
  await call(client, 'ok');
  await call(client, 'fail');
  await otel.tracerProvider.forceFlush();
  let spans = otel.spans.ring.map(slim);
  if (transport === 'stdio') {
    const r = await client.callTool({ name: 'bench_stats', arguments: {} });
    spans = spans.concat(JSON.parse(r.content[0].text).spans);
  }
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
  return out;
}

process.on('message', (msg) => {
  const handlers = {
    run,
    check,
    exit: async () => {
      await memory.close();
      await stdio?.close();
      setTimeout(() => process.exit(0), 50);
      return {};
    },
  };
  handlers[msg.cmd](msg).then(
    (result) => process.send({ id: msg.id, result }),
    (error) => process.send({ id: msg.id, error: String(error?.stack ?? error) }),
  );
});
process.send({ ready: true });
