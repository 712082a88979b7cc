// The MCP server the framework tests (B) call: SDK 2.x on stdio, failures built with this
// package's toolFailure(). Every tools/call it receives is appended to $CALLS_FILE as one JSON
// line, so a test counts what reached the server, whatever the framework did in between.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { toolFailure } from '@omcp/tool-failure';

const callsFile = process.env.CALLS_FILE;
const seen = new Map();

/** Records the call; returns how many times this tool was called in this process. */
function record(name, meta) {
  const n = (seen.get(name) ?? 0) + 1;
  seen.set(name, n);
  if (callsFile !== undefined)
    appendFileSync(
      callsFile,
      `${JSON.stringify({ server: process.env.SERVER_NAME, tool: name, n, at: Date.now(), traceparent: meta?.traceparent })}\n`,
    );
  return n;
}

const server = new McpServer({ name: 'failing-tools', version: '1.0.0' });
const idempotent = { idempotentHint: true, readOnlyHint: true };

// Busy once (retryable, not before 300 ms from now), then answers.
server.registerTool(
  'lookup_invoice',
  { description: 'Looks up an invoice', annotations: idempotent },
  async (ctx) => {
    const n = record('lookup_invoice', ctx?.mcpReq?._meta);
    if (n === 1)
      return toolFailure({
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: true,
        retryNotBefore: Date.now() + 300,
        agentGuidance: 'The billing service is busy; try again shortly.',
        message: 'Billing service unavailable',
      });
    return { content: [{ type: 'text', text: 'Invoice 42: paid' }] };
  },
);

// Always busy: every attempt fails the same way.
server.registerTool(
  'always_busy',
  { description: 'Never gets through', annotations: idempotent },
  async (ctx) => {
    record('always_busy', ctx?.mcpReq?._meta);
    return toolFailure({
      class: 'reliability',
      code: 'upstream_unavailable',
      retryable: true,
      agentGuidance: 'The billing service is down; tell the person to try later.',
      message: 'Billing service unavailable',
    });
  },
);

// A governance refusal: never retried.
server.registerTool(
  'refund_invoice',
  { description: 'Refunds an invoice', annotations: idempotent },
  async (ctx) => {
    record('refund_invoice', ctx?.mcpReq?._meta);
    return toolFailure(
      {
        class: 'governance',
        code: 'approval_required',
        agentGuidance:
          'A refund needs a manager to approve it; ask the person to request approval.',
        message: 'Refunds need approval',
      },
      // Another _meta key beside the failure object: neither may reach the model.
      { meta: { 'com.example/audit': { ticket: 'A-1' } } },
    );
  },
);

// A capability failure: never retried.
server.registerTool(
  'find_customer',
  { description: 'Finds a customer', annotations: idempotent },
  async (ctx) => {
    record('find_customer', ctx?.mcpReq?._meta);
    return toolFailure({
      class: 'capability',
      code: 'resource_not_found',
      agentGuidance: 'No such customer; ask the person for the customer number.',
      message: 'Customer not found',
    });
  },
);

// Not idempotent (a payment): a retryable transient error with a retryNotBefore, which no
// client may resend on its own, and no note may invite the model to resend.
server.registerTool(
  'send_payment',
  {
    description: 'Sends a payment',
    annotations: { idempotentHint: false, destructiveHint: true, readOnlyHint: false },
  },
  async (ctx) => {
    record('send_payment', ctx?.mcpReq?._meta);
    return toolFailure(
      {
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        retryNotBefore: Date.now() + 300,
        agentGuidance: 'The payment gateway timed out.',
        message: 'Payment gateway timed out',
      },
      { meta: { 'com.example/ledger': { batch: 'b-7' } } },
    );
  },
);

// Busy once, then the server process dies while answering the retry: the connection closes
// under the second attempt (a transport error, which a framework may reconnect and retry on).
server.registerTool(
  'busy_then_gone',
  { description: 'Loses its connection on the retry', annotations: idempotent },
  async (ctx) => {
    const n = record('busy_then_gone', ctx?.mcpReq?._meta);
    if (n === 1)
      return toolFailure({
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: true,
        agentGuidance: 'The billing service is busy; try again shortly.',
        message: 'Billing service unavailable',
      });
    process.exit(1);
  },
);

await server.connect(new StdioServerTransport());
