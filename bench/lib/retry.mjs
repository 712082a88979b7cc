// Timer accuracy of withToolRetry with real timers: a tool that fails with
// retryNotBefore = now + DELAY ms, 50 times, then succeeds. Prints one JSON line.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { performance } from 'node:perf_hooks';
import { setupOtel } from './otel.mjs';
import { installVariant } from './variants.mjs';
import { withToolRetry } from '../../dist/esm/retry/index.js';
import { toolFailure } from '../../dist/esm/tool-failure/index.js';

const RETRIES = 50;
const DELAY = 20;
setupOtel();
await installVariant('omcp');
const server = new McpServer({ name: 'retry', version: '1.0.0' });
const lateness = [];
let notBefore;
let n = 0;
server.registerTool(
  'flaky',
  { description: 'fails 50 times', annotations: { idempotentHint: true } },
  async () => {
    // Date.now() is what retryNotBefore is compared with; performance.now() adds sub-ms detail.
    const now = performance.timeOrigin + performance.now();
    if (notBefore !== undefined) lateness.push(now - notBefore);
    n += 1;
    if (n > RETRIES) return { content: [{ type: 'text', text: 'ok' }] };
    notBefore = Date.now() + DELAY;
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
    // Date.now() has 1 ms resolution: an attempt counts as early only if before notBefore - 1 ms.
    early: lateness.filter((x) => x < -1).length,
    outcome: report.outcome,
    attempts: report.attempts,
  }),
);
process.exit(0);
