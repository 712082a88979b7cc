// A full AI SDK agent loop (generateText with a scripted MockLanguageModelV4 from ai/test) over
// the MCP tools of @ai-sdk/mcp's own client, wrapped by withToolFailures, against server.mjs on
// stdio. Prints one JSON line: per scenario, what the model was handed on its next turn (the AI
// SDK's own conversion of the tool result), the model's whole input (every turn's prompt, as
// JSON), the result the application keeps, and the calls the server received.
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { toolCallReportOf } from '@omcp/instrumentation-mcp/retry';
import { withToolFailures } from '@omcp/instrumentation-mcp/frameworks/ai-sdk';
import { callLog } from './call-log.mjs';

const { path: CALL_LOG, calls } = callLog('ai-sdk');
const stdio = () =>
  new Experimental_StdioMCPTransport({
    command: process.execPath,
    args: ['server.mjs'],
    env: { CALL_LOG },
  });

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model whose first turn calls one tool and whose second turn answers; it keeps its inputs. */
function scriptedModel(toolName, input) {
  const turns = [];
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      turns.push(Date.now());
      if (turns.length === 1)
        return {
          content: [
            { type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      return {
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model, turns };
}

/** One agent run that calls `toolName`, and what each side saw. */
async function agentRun(tools, toolName, input) {
  const before = calls().length;
  const { model, turns } = scriptedModel(toolName, input);
  const result = await generateText({
    model,
    tools,
    prompt: 'Help the customer.',
    stopWhen: stepCountIs(3),
  });
  const toolMessage = model.doGenerateCalls[1]?.prompt.find((m) => m.role === 'tool');
  const output = result.steps[0]?.toolResults[0]?.output;
  return {
    modelTurns: turns,
    modelSaw: toolMessage?.content.find((part) => part.type === 'tool-result')?.output,
    modelInput: JSON.stringify(model.doGenerateCalls.map((call) => call.prompt)),
    kept: output,
    attempts: output === undefined ? undefined : toolCallReportOf(output)?.attempts,
    serverCalls: calls().slice(before),
  };
}

const transport = stdio();
const mcp = withToolFailures(await createMCPClient({ transport }), { modelNote: true });
const tools = await mcp.tools();

const out = {};
out.transient = await agentRun(tools, 'get_quote', { plan: 'pro' });
out.governance = await agentRun(tools, 'issue_refund', { amount: 250 });
out.capability = await agentRun(tools, 'find_invoice', { number: 'INV-7' });
await mcp.close();

// The note is opt-in: the same failure, wrapped without modelNote.
const plain = withToolFailures(await createMCPClient({ transport: stdio() }));
out.noteOff = await agentRun(await plain.tools(), 'issue_refund', { amount: 250 });
await plain.close();

// The AI SDK client's own retries (maxRetries) beside the adapter's: one call makes at most
// maxAttempts requests, since the client retries only what it throws and the adapter only results.
const stacked = withToolFailures(await createMCPClient({ transport: stdio(), maxRetries: 2 }), {
  modelNote: true,
});
out.exhausted = await agentRun(await stacked.tools(), 'always_busy', {});
try {
  withToolFailures(stacked, { retry: { retryOnThrow: true } });
} catch (error) {
  out.retryOnThrow = { name: error.name, message: error.message };
}
await stacked.close();

// A result with outputs (result variants, behind toolResultOutputs): the model is handed the
// assistant output with the note, never the View's output or _meta.
const variants = withToolFailures(await createMCPClient({ transport: stdio() }), {
  modelNote: true,
  toolResultOutputs: true,
});
out.outputs = await agentRun(await variants.tools(), 'search_customers', { query: 'Globex' });
await variants.close();

// A tool that is not idempotent (idempotentHint: false) fails retryable: never resent, and the
// note says to ask the person first.
const payments = withToolFailures(await createMCPClient({ transport: stdio() }), {
  modelNote: true,
});
out.payment = await agentRun(await payments.tools(), 'send_payment', { amount: 120 });
await payments.close();

console.log(JSON.stringify(out));
