// Preloaded (node --expose-gc --require) into the process a soak measures, which is otherwise run
// unchanged: on SIGUSR2 it collects garbage fully, then writes one line on stderr,
// `soak-memory {"heap":<bytes>,"rss":<bytes>}`: the V8 heap in use after GC and the resident
// set. The soak's driver sends the signal while no call is in flight, so the heap holds only
// what the process keeps between calls.
//
// SOAK_PLANT_LEAK_BYTES=N makes the process keep N bytes per HTTP request it serves, for good:
// the planted leak the soak must detect (it shows what size of leak the scale in use reveals).
'use strict';
const { setImmediate: tick } = require('node:timers/promises');

if (typeof globalThis.gc !== 'function') throw new Error('soak-probe: run node with --expose-gc');
const gc = globalThis.gc;

async function settledMemory() {
  // Several rounds, with turns of the event loop between them: finalizers and weak callbacks
  // run between collections and may free more in the next.
  for (let i = 0; i < 6; i++) {
    gc();
    await tick();
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

process.on('SIGUSR2', () => {
  void settledMemory().then((memory) => {
    process.stderr.write(`soak-memory ${JSON.stringify(memory)}\n`);
  });
});

const plant = Number(process.env.SOAK_PLANT_LEAK_BYTES ?? '0');
if (plant > 0) {
  const kept = [];
  const http = require('node:http');
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    // An array of plant / 8 doubles: its elements take exactly `plant` bytes of heap, shared
    // with nothing (a padded string may share its padding with the others).
    if (event === 'request') kept.push(new Array(Math.ceil(plant / 8)).fill(kept.length + 0.5));
    return emit.call(this, event, ...args);
  };
}
