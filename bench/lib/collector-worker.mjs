// One process exporting over OTLP/HTTP to BENCH_OTLP_URL (a local receiver, or a closed port).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { setImmediate as tick } from 'node:timers/promises';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { createServer } from './server.mjs';
import { COLLECTOR_BATCH } from './collector-batch.mjs';

setupOtel({
  spanExporter: new OTLPTraceExporter({ url: `${process.env.BENCH_OTLP_URL}/v1/traces` }),
  batch: COLLECTOR_BATCH,
});
const variant = await installVariant('omcp');
const { server } = createServer(variant);
const [a, b] = InMemoryTransport.createLinkedPair();
await server.connect(b);
const client = variant.client(new Client({ name: 'collector', version: '1.0.0' }));
await client.connect(a);
let total = 0;

const handlers = {
  async run({ n }) {
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++)
      await client.callTool({ name: i % 4 === 3 ? 'fail' : 'ok', arguments: {} });
    const ns = Number(process.hrtime.bigint() - start);
    const used = process.cpuUsage(cpu);
    total += n;
    return { nsPerCall: ns / n, cpuNsPerCall: ((used.user + used.system) * 1000) / n };
  },
  async mem() {
    for (let i = 0; i < 4; i++) {
      globalThis.gc();
      await tick();
    }
    return { heap: process.memoryUsage().heapUsed, calls: total };
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
