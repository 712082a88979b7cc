// A full OpenAI Agents JS loop (@openai/agents-core 0.20.0): the Runner, a scripted model (the
// framework's own Model interface), an MCP server on stdio (./server.mjs). For each tool the
// model calls it once, then prints one JSON line: what the Runner put in the model's next input
// for that call, the model's whole input (every turn's, as JSON), and the output item's customData.
import { trace } from '@opentelemetry/api';
import { Agent, MCPServerStdio, Runner, Usage } from '@openai/agents-core';
import { withToolFailures } from '@omcp/instrumentation-mcp/frameworks/openai-agents';

/** A model that calls `tool` on its first turn and answers on its second, keeping its inputs. */
class ScriptedModel {
  inputs = [];
  constructor(tool) {
    this.tool = tool;
  }
  async getResponse(request) {
    this.inputs.push(request.input);
    const output =
      this.inputs.length === 1
        ? [
            {
              type: 'function_call',
              callId: 'call-1',
              name: this.tool,
              arguments: '{}',
              status: 'completed',
            },
          ]
        : [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'done' }],
            },
          ];
    return { usage: new Usage(), output, responseId: `turn-${this.inputs.length}` };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error('not used');
  }
}

// The server runs as this app does (under the register entry when the app is), with its env.
const stdio = {
  name: 'billing',
  command: process.execPath,
  args: [...process.execArgv, process.env.SERVER_FILE],
  env: process.env,
  // Agents gives the server 5 s to start by default; a loaded CI machine may need more.
  clientSessionTimeoutSeconds: 60,
};

// docs:start openai-agents
const server = withToolFailures(new MCPServerStdio(stdio), { modelNote: true });
// docs:end openai-agents
await server.connect();

const tracer = trace.getTracer('agents-app');
const runner = new Runner({ tracingDisabled: true });
for (const tool of process.argv.slice(2)) {
  const model = new ScriptedModel(tool);
  const agent = new Agent({
    name: 'billing-agent',
    instructions: 'Help.',
    model,
    mcpServers: [server],
  });
  const result = await tracer.startActiveSpan(`turn ${tool}`, async (span) => {
    try {
      return await runner.run(agent, `use ${tool}`);
    } finally {
      span.end();
    }
  });
  const next = model.inputs[1];
  const toolResult = Array.isArray(next)
    ? next.find((item) => item.type === 'function_call_result')
    : undefined;
  const item = result.newItems.find((i) => i.type === 'tool_call_output_item');
  console.log(
    JSON.stringify({
      tool,
      modelTurns: model.inputs.length,
      modelSaw: toolResult?.output,
      modelInput: JSON.stringify(model.inputs),
      customData: item?.customData,
      finalOutput: result.finalOutput,
    }),
  );
}
await server.close();
