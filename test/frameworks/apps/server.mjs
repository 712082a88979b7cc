// The MCP server of the framework tests: an MCP SDK 1.x server on stdio whose tools fail the way
// real ones do, with failure objects from this package's toolFailure(). Each call is appended to
// $CALL_LOG as one JSON line ({ tool, n, at, retryNotBefore? }), so a test counts the attempts
// the server really received and when. $FLAKY_FAILURES: how many calls of get_quote fail first.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createToolFailure, toolFailure } from '@omcp/tool-failure';
import { z } from 'zod';

const flaky = Number(process.env.FLAKY_FAILURES ?? '1');
const waitMs = Number(process.env.RETRY_NOT_BEFORE_MS ?? '300');
const counts = new Map();

function record(tool, extra = {}) {
  const n = (counts.get(tool) ?? 0) + 1;
  counts.set(tool, n);
  if (process.env.CALL_LOG)
    appendFileSync(
      process.env.CALL_LOG,
      `${JSON.stringify({ tool, n, at: Date.now(), ...extra })}\n`,
    );
  return n;
}

const server = new McpServer({ name: 'billing', version: '1.0.0' });

server.registerTool(
  'get_quote',
  {
    description: 'The price of a plan.',
    inputSchema: { plan: z.string() },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  async ({ plan }) => {
    const retryNotBefore = Date.now() + waitMs;
    if ((counts.get('get_quote') ?? 0) < flaky) {
      record('get_quote', { retryNotBefore });
      return toolFailure({
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: true,
        retryNotBefore,
        message: 'The pricing service is busy.',
        agentGuidance: 'Try again in a moment.',
      });
    }
    record('get_quote');
    return { content: [{ type: 'text', text: `The ${plan} plan costs 42 EUR a month.` }] };
  },
);

server.registerTool(
  'always_busy',
  {
    description: 'A tool whose upstream never recovers.',
    inputSchema: {},
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  async () => {
    record('always_busy');
    return toolFailure({
      class: 'reliability',
      code: 'upstream_unavailable',
      retryable: true,
      message: 'The upstream is down.',
    });
  },
);

server.registerTool(
  'issue_refund',
  {
    description: 'Refunds an amount to the customer.',
    inputSchema: { amount: z.number() },
    annotations: { idempotentHint: true },
  },
  async ({ amount }) => {
    record('issue_refund');
    return toolFailure(
      {
        class: 'governance',
        code: 'permission_denied',
        message: `A refund of ${amount} EUR needs a supervisor's approval.`,
        agentGuidance:
          'Tell the person that a supervisor must approve this refund in the billing console.',
      },
      // Another _meta key beside the failure object: neither may reach the model.
      { meta: { 'com.example/audit': { ticket: 'A-1' } } },
    );
  },
);

server.registerTool(
  'find_invoice',
  {
    description: 'Finds an invoice by its number.',
    inputSchema: { number: z.string() },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  async ({ number }) => {
    record('find_invoice');
    return toolFailure({
      class: 'capability',
      code: 'resource_not_found',
      message: `There is no invoice ${number}.`,
      agentGuidance: 'Ask the person for the invoice number printed on the invoice.',
    });
  },
);

// Not idempotent (a payment): a retryable transient error with a retryNotBefore, which no
// client may resend on its own, and no note may invite the model to resend.
server.registerTool(
  'send_payment',
  {
    description: 'Sends a payment to a supplier.',
    inputSchema: { amount: z.number() },
    annotations: { idempotentHint: false, destructiveHint: true, readOnlyHint: false },
  },
  async () => {
    record('send_payment');
    return toolFailure(
      {
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        retryNotBefore: Date.now() + waitMs,
        message: 'The payment gateway timed out.',
        agentGuidance: 'The payment may not have been sent.',
      },
      { meta: { 'com.example/ledger': { batch: 'b-7' } } },
    );
  },
);

// A result with variants (the open SEP-3279, its MCP Apps example made a failed call): the
// model's output, the View's output and the View's own `_meta` entry, the failure object beside.
server.registerTool(
  'search_customers',
  {
    description: 'Searches the customer directory and shows the rows in a table.',
    inputSchema: { query: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ query }) => {
    record('search_customers');
    return {
      outputs: [
        {
          audience: 'assistant',
          format: 'content',
          content: [{ type: 'text', text: `Searching for ${query} needs a directory sign-in.` }],
        },
        {
          audience: 'io.modelcontextprotocol/ui',
          format: 'structured',
          structuredContent: { columns: ['displayName'], rows: [{ customerId: 'cust_1042' }] },
        },
      ],
      isError: true,
      _meta: {
        'io.modelcontextprotocol/ui': { continuationToken: 'view_opaque_token' },
        'io.modelcontextprotocol/toolFailure': createToolFailure({
          class: 'governance',
          code: 'auth_required',
          agentGuidance: 'Ask the person to sign in to the customer directory.',
        }),
      },
    };
  },
);

await server.connect(new StdioServerTransport());
