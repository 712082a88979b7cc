// The tools of a small travel desk, on a high-level McpServer. Each tool fails in one of the ways
// the tool-failure extension classifies; the other examples reuse this server.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolFailureError, toolFailure } from '@omcp/tool-failure';

/** What each failing tool is expected to produce (class and code). */
export const EXPECTED = Object.freeze({
  search_flights: { class: 'reliability', code: 'retryable_transient_error' },
  book_flight: { class: 'reliability', code: 'retryable_transient_error' },
  read_calendar: { class: 'governance', code: 'auth_required' },
  export_itinerary_pdf: { class: 'capability', code: 'capability_unsupported' },
  lookup_booking: { class: 'reliability', code: 'retryable_transient_error' },
});

/**
 * Builds the server. `search_flights` fails `flakyFailures` times, then succeeds, so a client
 * with a retry policy sees a transient failure go away. `capabilities` are declared up front.
 */
export function createTravelServer({ flakyFailures = 1, capabilities } = {}) {
  const server = new McpServer(
    { name: 'travel-desk', version: '1.0.0' },
    capabilities === undefined ? undefined : { capabilities },
  );
  let searches = 0;

  // Idempotent and transient: the one failure a client may retry by itself.
  server.registerTool(
    'search_flights',
    {
      description: 'Search flights (read-only).',
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async () => {
      searches += 1;
      if (searches <= flakyFailures) {
        // Thrown: the instrumentation turns it into exactly this failure object.
        throw new ToolFailureError({
          class: 'reliability',
          code: 'retryable_transient_error',
          retryable: true,
          retryNotBefore: Date.now() + 100,
          message: 'The fares service did not answer in time.',
          agentGuidance: 'Temporary outage; retrying shortly is safe.',
        });
      }
      return { content: [{ type: 'text', text: '3 flights found' }] };
    },
  );

  // Same transient failure, but booking is not idempotent: a client must not retry it.
  server.registerTool(
    'book_flight',
    {
      description: 'Book a flight (charges the card).',
      annotations: { idempotentHint: false, destructiveHint: false },
    },
    async () => {
      throw new ToolFailureError({
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        message: 'The airline booking system timed out; the booking may or may not exist.',
        agentGuidance: 'Do not book again; ask the user to check their bookings first.',
      });
    },
  );

  // Returned: the handler builds the result itself.
  server.registerTool(
    'read_calendar',
    { description: 'Read the user calendar.', annotations: { readOnlyHint: true } },
    async () =>
      toolFailure({
        class: 'governance',
        code: 'auth_required',
        message: 'The calendar account is not connected.',
        agentGuidance: 'Ask the user to reconnect their calendar account, then try again.',
      }),
  );

  server.registerTool(
    'export_itinerary_pdf',
    { description: 'Export the itinerary as PDF.' },
    async () =>
      toolFailure({
        class: 'capability',
        code: 'capability_unsupported',
        message: 'PDF export is not available on this server.',
        agentGuidance: 'Offer the itinerary as plain text instead.',
      }),
  );

  // An ordinary error: the instrumentation classifies it (a refused connection is transient).
  server.registerTool(
    'lookup_booking',
    { description: 'Look up a booking.', annotations: { readOnlyHint: true } },
    async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), {
        code: 'ECONNREFUSED',
      });
    },
  );

  return server;
}
