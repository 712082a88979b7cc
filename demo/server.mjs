// The demo's MCP server: one tool per failure shape of the tool-failure proposal. It has no
// telemetry code; the demo starts it with `node --import @omcp/instrumentation-mcp/register`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ToolFailureError, toolFailure } from '@omcp/tool-failure';
import { z } from 'zod';

const server = new McpServer({ name: 'omcp-demo-server', version: '1.0.0' });
const readOnly = { readOnlyHint: true, idempotentHint: true, destructiveHint: false };
const text = (t) => ({ content: [{ type: 'text', text: t }] });
// How often the transient tools fail before they succeed (load mode makes it a mix).
const failEvery = Number(process.env.DEMO_FAIL_EVERY ?? 3);
const counters = new Map();
const nth = (tool) => {
  const n = (counters.get(tool) ?? 0) + 1;
  counters.set(tool, n);
  return n;
};

server.registerTool(
  'weather_lookup',
  {
    description: 'Read-only forecast lookup; the upstream is flaky.',
    inputSchema: { city: z.string() },
    annotations: readOnly,
  },
  async ({ city }) => {
    // Fails twice, then succeeds: the client retries it, after retryNotBefore each time.
    if (nth('weather_lookup') % failEvery !== 0) {
      return toolFailure({
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        retryNotBefore: Date.now() + 200,
        message: 'The forecast provider is busy.',
        agentGuidance: 'Retry the same call shortly.',
      });
    }
    return text(`Forecast for ${city}: sunny, 21°C`);
  },
);

server.registerTool(
  'send_email',
  {
    description: 'Sends an email (not idempotent).',
    inputSchema: { to: z.string() },
    annotations: { destructiveHint: false, idempotentHint: false },
  },
  async () => {
    throw new ToolFailureError({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      message: 'The mail relay timed out; the message may or may not have been sent.',
      agentGuidance: 'Do not resend automatically; ask the user whether to try again.',
    });
  },
);

server.registerTool(
  'calendar_events',
  { description: 'Lists calendar events.', annotations: readOnly },
  async () =>
    toolFailure({
      class: 'governance',
      code: 'auth_required',
      message: 'The calendar account is not connected.',
      agentGuidance: 'Ask the user to connect their calendar account, then retry.',
    }),
);

server.registerTool(
  'delete_repository',
  { description: 'Deletes a repository.', inputSchema: { name: z.string() } },
  async () => {
    // An upstream API's 403, thrown as is: the instrumentation classifies it.
    throw Object.assign(new Error('GitHub API: 403 Must have admin rights to Repository.'), {
      status: 403,
    });
  },
);

server.registerTool(
  'export_customer_data',
  { description: 'Exports customer records.' },
  async () =>
    toolFailure({
      class: 'governance',
      code: 'policy_blocked',
      message: 'Bulk export of customer data is blocked by the data-residency policy.',
      agentGuidance: 'Tell the user this export needs approval from the data protection officer.',
    }),
);

server.registerTool(
  'book_flight',
  { description: 'Books a flight.', inputSchema: { flight: z.string() } },
  async () =>
    toolFailure({
      class: 'governance',
      code: 'user_action_required',
      message: 'The fare changed; the traveller must confirm the new price.',
      agentGuidance: 'Show the user the new fare and ask them to confirm before booking.',
    }),
);

server.registerTool(
  'render_video',
  { description: 'Renders a video.', annotations: readOnly },
  async () =>
    toolFailure({
      class: 'capability',
      code: 'capability_unsupported',
      message: 'This server has no GPU renderer.',
      agentGuidance: 'Offer the user a still-image preview instead.',
    }),
);

server.registerTool(
  'create_invoice',
  {
    description: 'Creates an invoice.',
    inputSchema: { amount: z.number().positive(), currency: z.string().length(3) },
  },
  async ({ amount, currency }) => text(`Invoice for ${amount} ${currency}`),
);

server.registerTool(
  'read_document',
  { description: 'Reads a document.', inputSchema: { id: z.string() }, annotations: readOnly },
  async ({ id }) => {
    throw Object.assign(new Error(`document ${id} not found in bucket docs-prod-eu`), {
      status: 404,
    });
  },
);

server.registerTool(
  'summarize_notes',
  { description: 'Summarises notes.', annotations: readOnly },
  async () => {
    // An ordinary bug: the instrumentation classifies it as internal_error, keeps the stack on the server.
    const notes = undefined;
    return text(notes.trim());
  },
);

await server.connect(new StdioServerTransport());
