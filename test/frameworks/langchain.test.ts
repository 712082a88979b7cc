/**
 * The LangChain.js adapter (`frameworks/langchain`), in a real install of the packed tarball
 * beside `@langchain/mcp-adapters` 1.1.4, `@langchain/core` 1.4.0 and `langchain` 1.5.14, on
 * Node.js 20 and 24. A full agent loop (`createAgent` with `fakeModel` from
 * `@langchain/core/testing`) calls the tools `loadMcpTools` makes from a wrapped MCP SDK client,
 * against an MCP SDK server on stdio; the model's next input is the `ToolMessage` LangChain's
 * own conversion made. App and server run under the register entry, exporting OTLP/HTTP to a
 * receiver on 127.0.0.1, so the trace is checked from the agent's span to the server's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolFailureNote } from '../../packages/tool-failure/src/model-note.js';
import type { ToolFailure } from '../../packages/tool-failure/src/types.js';
import { ATTR_MCP_TOOL_FAILURE_CLASS } from '../../src/semconv.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { pack, type Packed } from '../packaging/install.js';
import {
  expectModelInputsHidden,
  expectSentOnceWithConsent,
  frameworkProject,
  itDocumentsTheAgentLoop,
  itSaysFrameworkMissing,
  runApp,
  runtimesFrom,
  type ServerCall,
} from './helpers.js';

type Blocks = Array<{ type: string; text?: string }>;

/** One agent run of langchain-agent.mjs. */
interface AgentRun {
  traceId: string;
  modelTurns: number[];
  modelSaw: { content: string | Blocks; status: string };
  artifactFailure?: ToolFailure;
  /** Every turn's messages as the chat model gets them (no artifact), as JSON. */
  modelInput: string;
  serverCalls: ServerCall[];
}

interface AgentRuns {
  transient: AgentRun;
  governance: AgentRun;
  capability: AgentRun;
  noteOff: AgentRun;
  exhausted: AgentRun;
  exhaustedNoteOff: AgentRun;
  outputs: AgentRun;
  payment: AgentRun;
}

// @langchain/mcp-adapters 1.1.4 declares engines.node >= 20.10. Of 20, 22 and 24 the lowest and
// the newest line run: each line costs a full agent run of some 25 s.
const RUNTIMES = runtimesFrom(20).filter((r) => r.major !== 22);
const SPANS_OF_ONE_RUN = 3;

let packed: Packed;
let project: string;
let receiver: OtlpReceiver;

beforeAll(async () => {
  packed = pack();
  project = await frameworkProject('frameworks-langchain', RUNTIMES[0]!, packed);
  receiver = await startOtlpReceiver();
}, 400_000);

afterAll(async () => {
  await receiver?.close();
});

/** The model's next input: the server's own content, then exactly the note of the artifact's failure. */
function expectServerTextAndNote(
  run: AgentRun,
  serverText: string,
  annotations?: { idempotentHint: boolean },
): ToolFailure {
  const failure = run.artifactFailure;
  expect(failure, JSON.stringify(run)).toBeDefined();
  expect(run.modelSaw.content).toEqual([
    { type: 'text', text: serverText },
    { type: 'text', text: toolFailureNote(failure!, { annotations }) },
  ]);
  expect(JSON.stringify(run.modelSaw.content)).not.toContain('io.modelcontextprotocol/toolFailure');
  return failure!;
}

describe.each(RUNTIMES)('Node.js $major', (runtime) => {
  let runs: AgentRuns;

  beforeAll(async () => {
    runs = await runApp<AgentRuns>(
      runtime,
      project,
      ['--import', '@omcp/instrumentation-mcp/register', 'langchain-agent.mjs'],
      {
        OTEL_SERVICE_NAME: `langchain-node${runtime.major}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
      },
    );
  }, 200_000);

  it("a transient reliability failure is retried on its class before the model's next turn, not before retryNotBefore", () => {
    const { serverCalls, modelSaw, modelTurns } = runs.transient;
    expect(serverCalls.map((c) => c.tool)).toEqual(['get_quote', 'get_quote']);
    const [first, second] = serverCalls as [ServerCall, ServerCall];
    expect(second.at).toBeGreaterThanOrEqual(first.retryNotBefore!);
    expect(second.at).toBeLessThanOrEqual(modelTurns[1]!);
    expect(modelTurns).toHaveLength(2);
    expect(modelSaw).toEqual({ content: 'The pro plan costs 42 EUR a month.', status: 'success' });
  });

  it("a governance failure is handed on at once: the model's next input holds the server's text, the guidance and the reference", () => {
    const run = runs.governance;
    expect(run.serverCalls.map((c) => c.tool)).toEqual(['issue_refund']);
    const failure = expectServerTextAndNote(
      run,
      "A refund of 250 EUR needs a supervisor's approval.",
    );
    expect(failure).toMatchObject({ class: 'governance', code: 'permission_denied' });
    const note = (run.modelSaw.content as Blocks)[1]!.text!;
    expect(note).toContain('retry: no');
    expect(note).toContain(
      'guidance: Tell the person that a supervisor must approve this refund in the billing console.',
    );
    // The reference the model can quote is the trace of the agent's own span.
    expect(note).toContain(`reference: ${run.traceId} `);
  });

  it('a capability failure is handed on at once, with its note', () => {
    const run = runs.capability;
    expect(run.serverCalls.map((c) => c.tool)).toEqual(['find_invoice']);
    expect(expectServerTextAndNote(run, 'There is no invoice INV-7.').class).toBe('capability');
  });

  it('the failure object stays reachable as the ToolMessage artifact (toolFailureOfArtifact)', () => {
    expect(runs.governance.artifactFailure).toEqual({
      class: 'governance',
      code: 'permission_denied',
      correlationId: runs.governance.traceId,
      agentGuidance:
        'Tell the person that a supervisor must approve this refund in the billing console.',
    });
  });

  it("the note is opt-in: without modelNote, @langchain/mcp-adapters' ToolException reaches the model as before", () => {
    const run = runs.noteOff;
    expect(run.serverCalls.map((c) => c.tool)).toEqual(['issue_refund']);
    expect(run.modelSaw.status).toBe('error');
    expect(run.modelSaw.content).toContain(
      "ToolException: MCP tool 'issue_refund' on server 'billing' returned an error: A refund of 250 EUR needs a supervisor's approval.",
    );
    expect(run.modelSaw.content).not.toContain('[tool failure]');
    expect(run.artifactFailure).toBeUndefined();
  });

  it('toolResultOutputs: a result with outputs hands the model its assistant output and the note, never the View output or _meta', () => {
    const run = runs.outputs;
    expect(run.serverCalls.map((c) => c.tool)).toEqual(['search_customers']);
    const failure = expectServerTextAndNote(run, 'Searching for Globex needs a directory sign-in.');
    expect(failure).toMatchObject({ class: 'governance', code: 'auth_required' });
    expect(run.modelSaw.status).toBe('success');
    for (const hidden of ['view_opaque_token', 'cust_1042'])
      expect(JSON.stringify(run.modelSaw)).not.toContain(hidden);
  });

  it("langchain's toolRetryMiddleware never stacks on the adapter's retries with modelNote; without it, at most maxAttempts x (1 + maxRetries)", () => {
    const noted = runs.exhausted;
    expect(noted.serverCalls).toHaveLength(3);
    expect(
      expectServerTextAndNote(noted, 'The upstream is down.', { idempotentHint: true }).class,
    ).toBe('reliability');
    expect((noted.modelSaw.content as Blocks)[1]!.text).toContain('\nretry: yes\n');
    // Without the note the middleware retries the ToolException: 1 + maxRetries (2) tries of a
    // logical call of maxAttempts (3) attempts each; with no retry budget to stop it sooner, 9.
    const plain = runs.exhaustedNoteOff;
    expect(plain.serverCalls).toHaveLength(9);
    expect(plain.modelSaw.status).toBe('error');
  });

  it('the model’s input holds no _meta key in any run (with and without the note, with outputs), while the artifact holds the failure object', () => {
    expectModelInputsHidden(Object.entries(runs));
    expect(runs.governance.artifactFailure?.class).toBe('governance');
  });

  it('never invites the model to resend a non-idempotent call: send_payment’s retryable failure is sent once, its note says only with the user’s consent', () => {
    const run = runs.payment;
    const failure = expectServerTextAndNote(run, 'The payment gateway timed out.', {
      idempotentHint: false,
    });
    expectSentOnceWithConsent(run, failure, (run.modelSaw.content as Blocks)[1]!.text!);
  });

  it('one trace from the agent span through the client span (the official SDK client, this package) to the server span', async () => {
    const { traceId } = runs.governance;
    await receiver.waitFor(
      (spans) => spans.filter((s) => s.traceId === traceId).length >= SPANS_OF_ONE_RUN,
    );
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const agent = spans.find((s) => s.name === 'agent issue_refund');
    const client = spans.find((s) => s.name === 'tools/call issue_refund' && s.kind === 3);
    const server = spans.find((s) => s.name === 'tools/call issue_refund' && s.kind === 2);
    expect(agent, JSON.stringify(spans.map((s) => [s.name, s.kind]))).toBeDefined();
    expect(client).toBeDefined();
    expect(server).toBeDefined();
    expect(server!.parentSpanId).toBe(client!.spanId);
    expect(server!.serviceName).toBe(`langchain-node${runtime.major}`);
    expect(server!.attributes[ATTR_MCP_TOOL_FAILURE_CLASS]).toBe('governance');
  });
});

// This project has LangChain.js but not @ai-sdk/mcp.
itSaysFrameworkMissing(
  RUNTIMES[0]!,
  () => project,
  { adapter: 'ai-sdk', framework: '@ai-sdk/mcp' },
  ['missing.cjs', 'langchain'],
);

itDocumentsTheAgentLoop(RUNTIMES[0]!, () => project, {
  name: 'langchain',
  app: 'langchain-agent.mjs',
  typings: 'LangChain.js',
  before: `import { createAgent } from 'langchain';
import { toolFailureOfArtifact } from '@omcp/instrumentation-mcp/frameworks/langchain';
const mcp = new MultiServerMCPClient({
  mcpServers: { billing: { transport: 'stdio', command: 'node', args: ['server.mjs'] } },
});`,
  after: `const agent = createAgent({ model: 'openai:gpt-4o', tools });
console.log(typeof agent, toolFailureOfArtifact([])?.correlationId);`,
});
