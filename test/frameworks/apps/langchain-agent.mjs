// A full LangChain.js agent loop (langchain's createAgent with the scripted fakeModel from
// @langchain/core/testing) over the tools @langchain/mcp-adapters loads from an MCP SDK client
// wrapped by withToolFailures, against server.mjs on stdio. Run under the register entry, with
// the server under it too, so the trace goes from the agent's span through the client span to
// the server span. Prints one JSON line: per scenario, the ToolMessage the model was handed on
// its next turn, the model's whole input (every turn's messages as a chat model sends them: the
// artifact, which LangChain never sends a model, left out), the failure object in the artifact,
// the trace ID and the server's calls.
import { trace } from '@opentelemetry/api';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MultiServerMCPClient, loadMcpTools } from '@langchain/mcp-adapters';
import { createAgent, toolRetryMiddleware } from 'langchain';
import { withToolFailures } from '@omcp/instrumentation-mcp/frameworks/langchain';
import { toolFailureOfArtifact } from '@omcp/instrumentation-mcp/frameworks/langchain';
import { callLog } from './call-log.mjs';

const { path: CALL_LOG, calls } = callLog('langchain');
const tracer = trace.getTracer('langchain-agent');

const mcp = new MultiServerMCPClient({
  mcpServers: {
    billing: {
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', '@omcp/instrumentation-mcp/register', 'server.mjs'],
      env: { ...process.env, CALL_LOG },
    },
  },
});

/** A model whose first turn calls one tool and whose second turn answers; it keeps its inputs. */
function scriptedModel(name, args) {
  const turns = [];
  const model = fakeModel()
    .respond(() => {
      turns.push(Date.now());
      return new AIMessage({
        content: '',
        tool_calls: [{ name, args, id: 'call-1', type: 'tool_call' }],
      });
    })
    .respond(() => {
      turns.push(Date.now());
      return new AIMessage('Done.');
    });
  return { model, turns };
}

/** One agent run that calls `toolName` inside a span of its own, and what each side saw. */
async function agentRun(tools, toolName, args, middleware = []) {
  const before = calls().length;
  const { model, turns } = scriptedModel(toolName, args);
  const agent = createAgent({ model, tools, middleware });
  const traceId = await tracer.startActiveSpan(`agent ${toolName}`, async (span) => {
    try {
      await agent.invoke({ messages: [{ role: 'user', content: 'Help the customer.' }] });
    } finally {
      span.end();
    }
    return span.spanContext().traceId;
  });
  const message = model.calls[1]?.messages.find((m) => ToolMessage.isInstance(m));
  return {
    traceId,
    modelTurns: turns,
    modelSaw: message && { content: message.content, status: message.status },
    modelInput: JSON.stringify(
      model.calls.map((call) =>
        call.messages.map((m) => ({
          type: m.type,
          content: m.content,
          tool_calls: m.tool_calls,
          tool_call_id: m.tool_call_id,
          status: m.status,
        })),
      ),
    ),
    artifactFailure: message && toolFailureOfArtifact(message.artifact),
    serverCalls: calls().slice(before),
  };
}

const client = withToolFailures(await mcp.getClient('billing'), { modelNote: true });
const tools = await loadMcpTools('billing', client);

const out = {};
out.transient = await agentRun(tools, 'get_quote', { plan: 'pro' });
out.governance = await agentRun(tools, 'issue_refund', { amount: 250 });
out.capability = await agentRun(tools, 'find_invoice', { number: 'INV-7' });

// The note is opt-in: without it, @langchain/mcp-adapters throws its ToolException as before.
const plain = await loadMcpTools(
  'billing',
  withToolFailures(await mcp.getClient('billing'), { retry: { retryBudget: false } }),
);
out.noteOff = await agentRun(plain, 'issue_refund', { amount: 250 });

// langchain's toolRetryMiddleware retries what a tool throws. With the note, a failed call is a
// result, so it never retries on top of the adapter; without it, each of its tries is a logical
// call of the adapter's (`plain` has no retry budget, so the worst case is what happens).
const fast = { maxRetries: 2, initialDelayMs: 10, jitter: false };
out.exhausted = await agentRun(tools, 'always_busy', {}, [toolRetryMiddleware(fast)]);
out.exhaustedNoteOff = await agentRun(plain, 'always_busy', {}, [toolRetryMiddleware(fast)]);

// A result with outputs (result variants, behind toolResultOutputs): the model is handed the
// assistant output with the note, never the View's output or _meta.
const variants = await loadMcpTools(
  'billing',
  withToolFailures(await mcp.getClient('billing'), { modelNote: true, toolResultOutputs: true }),
);
out.outputs = await agentRun(variants, 'search_customers', { query: 'Globex' });

// A tool that is not idempotent (idempotentHint: false) fails retryable: never resent, and the
// note says to ask the person first.
out.payment = await agentRun(tools, 'send_payment', { amount: 120 });

await mcp.close();
console.log(JSON.stringify(out));
