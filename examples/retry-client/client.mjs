// A client that dispatches failed tool calls on their class, like an agent would:
// reliability + retryable + idempotent tool -> retry (not before retryNotBefore);
// governance -> ask the user; capability -> stop and try something else. Run:
//   node --import ./examples/telemetry.mjs examples/retry-client/client.mjs
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { withToolRetry } from '@omcp/instrumentation-mcp/retry';
import { check, spanExporter } from '../check.mjs';
import { createTravelServer } from '../high-level-server/tools.mjs';

/** What the agent does with one logical call's report. */
function dispatch(report) {
  if (report.outcome === 'success') return { action: 'continue', say: 'done' };
  const { decision, failure } = report;
  switch (decision?.action) {
    case 'out_of_band':
      // governance: a human must act (sign in, approve). The guidance is data for the model,
      // shown to the user, never executed by the client.
      return { action: 'ask_user', say: failure.agentGuidance ?? 'This needs your action.' };
    case 'surface':
      // capability: retrying as-is cannot help; plan differently.
      return { action: 'change_plan', say: failure.agentGuidance ?? 'Try another approach.' };
    default:
      // reliability the policy would not (or no longer) retry, or an unclassified error.
      return { action: 'stop', say: `gave up (${decision?.reason ?? report.outcome})` };
  }
}

spanExporter(); // fails early, with the command to use, when the telemetry is not loaded
const server = createTravelServer({ flakyFailures: 1 });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = withToolRetry(new Client({ name: 'agent', version: '1.0.0' }), {
  maxAttempts: 3,
  maxElapsedMs: 5_000,
  backoff: { initialDelayMs: 50, maxDelayMs: 500 },
});
await client.connect(clientSide);
await client.listTools(); // the policy learns each tool's idempotentHint from this listing

const expected = {
  search_flights: { action: 'continue', attempts: 2 },
  book_flight: { action: 'stop', attempts: 1, reason: 'not_idempotent' },
  read_calendar: { action: 'ask_user', attempts: 1 },
  export_itinerary_pdf: { action: 'change_plan', attempts: 1 },
  lookup_booking: { action: 'stop', attempts: 1, reason: 'not_idempotent' },
};

for (const [tool, want] of Object.entries(expected)) {
  const started = Date.now();
  const report = await client.callToolWithRetry({ name: tool, arguments: {} });
  const step = dispatch(report);
  console.log(
    `${tool}: ${step.action} after ${report.attempts} attempt(s) (${report.outcome}) - ${step.say}`,
  );
  check(step.action === want.action, `${tool}: expected ${want.action}, got ${step.action}`);
  check(
    report.attempts === want.attempts,
    `${tool}: expected ${want.attempts} attempt(s), got ${report.attempts}`,
  );
  if (want.reason) {
    check(report.decision?.reason === want.reason, `${tool}: expected stop reason ${want.reason}`);
  }
  if (tool === 'search_flights') {
    // The server asked for no retry before ~100 ms; the policy honoured it.
    check(Date.now() - started >= 90, 'search_flights: retried before retryNotBefore');
  }
}

// The retry shows up in the trace: one logical span, a retry event, two attempt spans.
const spans = spanExporter().getFinishedSpans();
const logical = spans.find((s) => s.name === 'mcp.tool.call search_flights');
check(logical !== undefined, 'no mcp.tool.call search_flights span');
check(
  logical.events.some((e) => e.name === 'mcp.tool.call.retry'),
  'no mcp.tool.call.retry event on the logical span',
);
const inTrace = (s) =>
  s.name === 'tools/call search_flights' &&
  s.spanContext().traceId === logical.spanContext().traceId &&
  s.attributes['mcp.tool.call.attempt'] !== undefined;
const CLIENT = 2;
const SERVER = 1;
const attempts = spans.filter((s) => inTrace(s) && s.kind === CLIENT);
check(attempts.length === 2, `expected 2 attempt spans, got ${attempts.length}`);
// The second attempt carries _meta["dev.omcp/attempt"]: 2, so the server's span says it too.
const serverRetry = spans.find((s) => inTrace(s) && s.kind === SERVER);
check(
  serverRetry?.attributes['mcp.tool.call.attempt'] === 2,
  'the server span of the retry does not record attempt 2',
);
console.log(
  `trace ${logical.spanContext().traceId}: 1 logical call, 2 attempts, 1 retry event; the server saw attempt 2`,
);

await client.close();
console.log('OK retry-client');
