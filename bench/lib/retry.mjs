// Timer accuracy of withToolRetry with real timers: a tool that fails with
// retryNotBefore = now + DELAY ms, 50 times, then succeeds. Prints one JSON line.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { performance } from 'node:perf_hooks';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { withToolRetry } from '../../dist/esm/retry/index.js';
import { toolFailure } from '@omcp/tool-failure';

const RETRIES = 50;
const DELAY = 20;
setupOtel();
await installVariant('omcp');
const server = new McpServer({ name: 'retry', version: '1.0.0' });
const lateness = [];
let early = 0;
let notBefore;
/** `notBefore` on the monotonic clock, read at the same moment: the lateness in sub-ms detail. */
let notBeforeMonotonic;
let n = 0;
server.registerTool(
  'flaky',
  { description: 'fails 50 times', annotations: { idempotentHint: true } },
  async () => {
    // Early is judged on the clock retryNotBefore is defined on (Date.now(), epoch ms); the
    // lateness is measured on the monotonic clock, from the deadline placed on it when it was set.
    // (performance.timeOrigin + performance.now() is not Date.now(): the two drift apart by
    // milliseconds on a loaded machine, which read as early attempts that were not.)
    if (notBefore !== undefined) {
      if (Date.now() < notBefore) early += 1;
      lateness.push(performance.now() - notBeforeMonotonic);
    }
    n += 1;
    if (n > RETRIES) return { content: [{ type: 'text', text: 'ok' }] };
    notBefore = Date.now() + DELAY;
    notBeforeMonotonic = performance.now() + DELAY;
    return toolFailure({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: notBefore,
      message: 'try again shortly',
    });
  },
);
const [a, b] = InMemoryTransport.createLinkedPair();
await server.connect(b);
const raw = new Client({ name: 'retry', version: '1.0.0' });
await raw.connect(a);
const client = withToolRetry(raw, {
  maxAttempts: RETRIES + 1,
  maxElapsedMs: 60_000,
  retryBudget: false,
  backoff: { initialDelayMs: 1, maxDelayMs: 1 },
});
const report = await client.callToolWithRetry({ name: 'flaky', arguments: {} });
const s = [...lateness].sort((x, y) => x - y);
const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
console.log(
  JSON.stringify({
    retries: lateness.length,
    delayMs: DELAY,
    min: s[0],
    median: q(0.5),
    p95: q(0.95),
    max: s[s.length - 1],
    early,
    outcome: report.outcome,
    attempts: report.attempts,
  }),
);
process.exit(0);
