import * as v2Server from '@modelcontextprotocol/server';

/**
 * Registers `confirm`: one logical call in two rounds on 2026-07-28, input_required (an
 * elicitation of `{ ok: boolean }`) first, `confirmed` once the answer accepts.
 */
export function registerConfirmTool(server: v2Server.McpServer): void {
  server.registerTool('confirm', {}, async (ctx) => {
    const answer = v2Server.acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
    if (answer?.ok !== true)
      return v2Server.inputRequired({
        inputRequests: {
          confirm: v2Server.inputRequired.elicit({
            message: 'Go on?',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          }),
        },
      });
    return { content: [{ type: 'text', text: 'confirmed' }] };
  });
}
