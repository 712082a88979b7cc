import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
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
for (let i = 0; i < 5000; i++) await c.callTool({ name: tool, arguments: {} });
const s = new Session();
s.connect();
await s.post('HeapProfiler.enable');
await s.post('HeapProfiler.startSampling', {
  samplingInterval: 512,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const N = 5000;
for (let i = 0; i < N; i++) await c.callTool({ name: tool, arguments: {} });
await otel.tracerProvider.forceFlush();
await otel.loggerProvider.forceFlush();
const { profile } = await s.post('HeapProfiler.stopSampling');
const self = new Map();
let total = 0;
const parents = [];
const callers = new Map();
const walk0 = (n, path) => {
  const k = `${n.callFrame.functionName || '(anon)'}:${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
  const np = [...path, k];
  if (process.env.WHO && n.callFrame.functionName === process.env.WHO && n.selfSize > 0) {
    const key = np.slice(-7, -1).join(' < ');
    callers.set(key, (callers.get(key) ?? 0) + n.selfSize);
  }
  for (const ch of n.children ?? []) walk0(ch, np);
};
walk0(profile.head, []);
if (process.env.WHO)
  [...callers]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .forEach(([k, v]) => console.log(Math.round(v / 5000), k));
const walk = (n) => {
  const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url
    .replace(/.*node_modules\//, '')
    .replace(/.*\/main\/dist\//, 'OMCP/')
    .replace(/.*\/bench\//, 'bench/')}:${n.callFrame.lineNumber}`;
  const sz = n.selfSize ?? 0;
  total += sz;
  self.set(k, (self.get(k) ?? 0) + sz);
  for (const ch of n.children ?? []) walk(ch);
};
walk(profile.head);
console.log(process.env.V, tool, 'sampled bytes/call', Math.round(total / N));
const f = process.env.F ? new RegExp(process.env.F) : null;
[...self]
  .filter(([k]) => !f || f.test(k))
  .sort((x, y) => y[1] - x[1])
  .slice(0, Number(process.env.TOP ?? 30))
  .forEach(([k, v]) => console.log(String(Math.round(v / N)).padStart(6), k));
process.exit(0);
