import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { createServer } from './server.mjs';
const otel = setupOtel();
const variant = await installVariant(process.env.V ?? 'omcp');
if (process.env.CFG) variant.instrumentation.setConfig(JSON.parse(process.env.CFG));
const { server } = createServer(variant);
const [a, b] = InMemoryTransport.createLinkedPair();
await server.connect(b);
const c = variant.client(new Client({ name: 'x', version: '1' }));
await c.connect(a);
const tool = process.env.T ?? 'fail';
const res = [];
for (let r = 0; r < Number(process.env.R ?? 12); r++) {
  const t = process.cpuUsage();
  for (let i = 0; i < 2000; i++) await c.callTool({ name: tool, arguments: {} });
  const d = process.cpuUsage(t);
  res.push((d.user + d.system) / 2000);
}
res.sort((x, y) => x - y);
console.log(process.env.V, tool, process.env.CFG ?? '', 'cpu µs/call median', res[6].toFixed(1), 'min', res[0].toFixed(1));
process.exit(0);
