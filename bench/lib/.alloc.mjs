import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { createServer } from './server.mjs';
const otel = setupOtel();
const variant = await installVariant(process.env.V ?? 'omcp');
const { server } = createServer(variant);
const [a, b] = InMemoryTransport.createLinkedPair();
await server.connect(b);
const c = variant.client(new Client({ name: 'x', version: '1' }));
await c.connect(a);
const tool = process.env.T ?? 'ok';
const N = 1000;
for (let i = 0; i < 5000; i++) await c.callTool({ name: tool, arguments: {} });
const out = [];
for (let r = 0; r < 5; r++) {
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) await c.callTool({ name: tool, arguments: {} });
  await otel.tracerProvider.forceFlush();
  await otel.loggerProvider.forceFlush();
  const after = process.memoryUsage().heapUsed;
  out.push(Math.round((after - before) / N));
}
console.log(process.env.V, tool, 'bytes/call', out.join(' '));
process.exit(0);
