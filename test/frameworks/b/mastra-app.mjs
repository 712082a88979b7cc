// A full Mastra agent loop (@mastra/core 1.71.0, @mastra/mcp 2.0.0): an Agent with a scripted
// model (Mastra's own MastraLanguageModelV2Mock, from @mastra/core/test-utils/llm-mock) and the
// tools of an MCPClient with two servers on stdio (./server.mjs): `billing` with Mastra's default
// onToolError ('throw'), `ledger` with 'return'. For each tool named in the arguments (Mastra's
// names, `<server>_<tool>`) the model calls it once, then the app prints one JSON line: the tool
// message Mastra put in the model's next prompt for that call, the model's whole input (every
// prompt, as JSON), and the tool result the application got.
import { Agent } from '@mastra/core/agent';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { MCPClient } from '@mastra/mcp';
import { trace } from '@opentelemetry/api';
import { withToolFailures } from '@omcp/instrumentation-mcp/frameworks/mastra';

const tools = process.argv.slice(2);

/** A model that calls `tool` on its first turn and answers on its second, keeping its prompts. */
function scriptedModel(tool) {
  const prompts = [];
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const respond = (options) => {
    prompts.push(options.prompt);
    const first = prompts.length === 1;
    return {
      content: first
        ? [{ type: 'tool-call', toolCallId: 'call-1', toolName: tool, input: '{}' }]
        : [{ type: 'text', text: 'done' }],
      finishReason: first ? 'tool-calls' : 'stop',
      usage,
      warnings: [],
    };
  };
  const model = new MastraLanguageModelV2Mock({ doGenerate: async (options) => respond(options) });
  return { model, prompts };
}

// The servers run as this app does (under the register entry when the app is), with its env:
// the same server twice, once with Mastra's default onToolError ('throw'), once with 'return'.
const serverOf = (name, onToolError) => ({
  command: process.execPath,
  args: [...process.execArgv, process.env.SERVER_FILE],
  env: { ...process.env, SERVER_NAME: name },
  ...(onToolError === undefined ? {} : { onToolError }),
});
const billing = serverOf('billing');
const ledger = serverOf('ledger', 'return');

// docs:start mastra
const mcp = withToolFailures(new MCPClient({ servers: { billing, ledger } }), { modelNote: true });
// docs:end mastra

// A server whose definition gives Mastra a traceContext: Mastra then puts its own traceparent in
// _meta (TRACED_TRACEPARENT), and the instrumentation must not add a second one.
const traced = {
  ...serverOf('traced'),
  traceContext: () => ({ traceparent: process.env.TRACED_TRACEPARENT }),
};
const tracedMcp = withToolFailures(new MCPClient({ id: 'traced', servers: { traced } }));

// A server of its own (and so a retry budget of its own) for send_payment under 'throw'.
const payments = withToolFailures(
  new MCPClient({ id: 'payments', servers: { payments: serverOf('payments') } }),
  { modelNote: true },
);

const tracer = trace.getTracer('mastra-app');
const mastraTools = {
  ...(await mcp.listTools()),
  ...(await tracedMcp.listTools()),
  ...(await payments.listTools()),
};
for (const tool of tools) {
  const { model, prompts } = scriptedModel(tool);
  const agent = new Agent({
    id: 'billing-agent',
    name: 'billing-agent',
    instructions: 'Help.',
    model,
    tools: mastraTools,
  });
  const result = await tracer.startActiveSpan(`turn ${tool}`, async (span) => {
    try {
      return await agent.generate(`use ${tool}`);
    } finally {
      span.end();
    }
  });
  const toolMessage = prompts[1]?.find((m) => m.role === 'tool');
  console.log(
    JSON.stringify({
      tool,
      modelTurns: prompts.length,
      modelSaw: toolMessage?.content?.[0]?.output,
      modelInput: JSON.stringify(prompts),
      toolResult: result.toolResults?.[0]?.payload,
      text: result.text,
    }),
  );
}
await mcp.disconnect();
await tracedMcp.disconnect();
await payments.disconnect();
