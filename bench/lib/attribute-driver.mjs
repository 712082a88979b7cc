// The process `bench/attribute.mjs` profiles: this package (manual mode) and the mission floor,
// each on its own in-memory pair in this one process, ATTRIBUTE_TOOL calls in runs of 25, the
// order of the two runs drawn afresh every round (a fixed order would hand one row every export
// a full batch of spans triggers). Spans are flushed every 20 rounds, as in the in-process section.
import { McpInstrumentation } from '../../dist/esm/index.js';
import { missionFloor } from './mission-floor.mjs';
import { setupOtel } from './otel.mjs';
import { connectInMemory } from './server.mjs';
import { manualVariant } from './variants.mjs';

const otel = setupOtel();
const clients = [
  await connectInMemory(manualVariant(McpInstrumentation), 'attribute-omcp'),
  await connectInMemory(missionFloor(), 'attribute-mission-floor'),
];
const tool = process.env.ATTRIBUTE_TOOL ?? 'ok';
const calls = Number(process.env.ATTRIBUTE_CALLS ?? '40000');
let seed = 4242;
const coin = () => (seed = (seed * 16807) % 2147483647) % 2 === 0;
for (let round = 0; round < Math.ceil(calls / 25); round++) {
  const order = coin() ? clients : [clients[1], clients[0]];
  for (const client of order)
    for (let k = 0; k < 25; k++) {
      const r = await client.callTool({ name: tool, arguments: {} });
      if ((r.isError === true) !== (tool === 'fail'))
        throw new Error(`unexpected result of ${tool}`);
    }
  if (round % 20 === 19) {
    await otel.tracerProvider.forceFlush();
    await otel.loggerProvider.forceFlush();
  }
}
process.exit(0);
