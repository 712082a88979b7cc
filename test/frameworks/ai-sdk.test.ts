/**
 * The Vercel AI SDK adapter (`frameworks/ai-sdk`), in a real install of the packed tarball beside
 * `ai` 7.0.173 and `@ai-sdk/mcp` 2.0.99, on every Node.js line they support (22 and 24). A full
 * agent loop (`generateText` with `MockLanguageModelV4` from `ai/test`) calls the tools of
 * `@ai-sdk/mcp`'s own client against an MCP SDK server on stdio; the model's next input is
 * what the AI SDK's own conversion (`toModelOutput`) made of the tool result.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { toolFailureNote } from '../../packages/tool-failure/src/model-note.js';
import { TOOL_FAILURE_META_KEY } from '../../packages/tool-failure/src/constants.js';
import type { ToolFailure } from '../../packages/tool-failure/src/types.js';
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

interface CallToolResult {
  content: Array<{ type: string; text?: string }>;
  outputs?: Array<{ audience: string; format: string; content?: unknown[] }>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** One agent run of ai-sdk-agent.mjs. */
interface AgentRun {
  modelTurns: number[];
  modelSaw: { type: string; value: Array<{ type: string; text?: string }> };
  /** Every turn's prompt, as JSON. */
  modelInput: string;
  kept: CallToolResult;
  attempts: number | undefined;
  serverCalls: ServerCall[];
}

interface AgentRuns {
  transient: AgentRun;
  governance: AgentRun;
  capability: AgentRun;
  noteOff: AgentRun;
  exhausted: AgentRun;
  outputs: AgentRun;
  payment: AgentRun;
  retryOnThrow?: { name: string; message: string };
}

// ai 7 and @ai-sdk/mcp 2 declare engines.node >= 22.
const RUNTIMES = runtimesFrom(22);

let packed: Packed;
let project: string;

beforeAll(async () => {
  packed = pack();
  project = await frameworkProject('frameworks-ai-sdk', RUNTIMES[0]!, packed);
}, 400_000);

function failureOf(result: CallToolResult): ToolFailure {
  const failure = result._meta?.[TOOL_FAILURE_META_KEY];
  expect(failure, JSON.stringify(result)).toBeDefined();
  return failure as ToolFailure;
}

/** The model's next input: the server's own content, then exactly the note of `failure`. */
function expectServerTextAndNote(
  run: AgentRun,
  serverText: string,
  annotations?: { idempotentHint: boolean },
): ToolFailure {
  const failure = failureOf(run.kept);
  expect(run.modelSaw.type).toBe('content');
  expect(run.modelSaw.value).toEqual([
    { type: 'text', text: serverText },
    { type: 'text', text: toolFailureNote(failure, { annotations }) },
  ]);
  const note = run.modelSaw.value[1]!.text!;
  expect(note).toContain(`reference: ${failure.correlationId} `);
  return failure;
}

describe.each(RUNTIMES)('Node.js $major', (runtime) => {
  let runs: AgentRuns;

  beforeAll(async () => {
    runs = await runApp<AgentRuns>(runtime, project, ['ai-sdk-agent.mjs']);
  }, 200_000);

  it("a transient reliability failure is retried on its class before the model's next turn, not before retryNotBefore", () => {
    const { serverCalls, modelSaw, modelTurns, attempts } = runs.transient;
    expect(serverCalls.map((c) => c.tool)).toEqual(['get_quote', 'get_quote']);
    const [first, second] = serverCalls as [ServerCall, ServerCall];
    expect(second.at).toBeGreaterThanOrEqual(first.retryNotBefore!);
    // Both attempts happened inside the one tool execution, before the model's second turn.
    expect(second.at).toBeLessThanOrEqual(modelTurns[1]!);
    expect(modelTurns).toHaveLength(2);
    expect(attempts).toBe(2);
    expect(modelSaw).toEqual({
      type: 'content',
      value: [{ type: 'text', text: 'The pro plan costs 42 EUR a month.' }],
    });
  });

  it("a governance failure is handed on at once: the model's next input holds the server's text, the guidance and the reference", () => {
    const run = runs.governance;
    expect(run.serverCalls.map((c) => c.tool)).toEqual(['issue_refund']);
    expect(run.attempts).toBe(1);
    const failure = expectServerTextAndNote(
      run,
      "A refund of 250 EUR needs a supervisor's approval.",
    );
    expect(failure.class).toBe('governance');
    const note = run.modelSaw.value[1]!.text!;
    expect(note).toContain('retry: no');
    expect(note).toContain(
      'guidance: Tell the person that a supervisor must approve this refund in the billing console.',
    );
  });

  it('a capability failure is handed on at once, with its note', () => {
    const run = runs.capability;
    expect(run.serverCalls.map((c) => c.tool)).toEqual(['find_invoice']);
    expect(run.attempts).toBe(1);
    expect(expectServerTextAndNote(run, 'There is no invoice INV-7.').class).toBe('capability');
  });

  it('the failure object stays on the result the application keeps (toolResults[].output), unchanged', () => {
    const { kept } = runs.governance;
    expect(kept.isError).toBe(true);
    expect(kept.content).toEqual([
      { type: 'text', text: "A refund of 250 EUR needs a supervisor's approval." },
    ]);
    expect(failureOf(kept)).toMatchObject({ class: 'governance', code: 'permission_denied' });
    expect(failureOf(kept).correlationId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("the note is opt-in: without modelNote the model gets the AI SDK's own conversion, unchanged", () => {
    const run = runs.noteOff;
    expect(run.modelSaw).toEqual({
      type: 'content',
      value: [{ type: 'text', text: "A refund of 250 EUR needs a supervisor's approval." }],
    });
    expect(failureOf(run.kept).class).toBe('governance');
  });

  it('toolResultOutputs: a result with outputs hands the model its assistant output and the note, never the View output or _meta', () => {
    const run = runs.outputs;
    expect(run.serverCalls.map((c) => c.tool)).toEqual(['search_customers']);
    // @ai-sdk/mcp keeps outputs (its result schema is loose); the MCP SDK server added content: [].
    expect(run.kept.content).toEqual([]);
    expect(run.kept.outputs?.map((o) => `${o.audience}/${o.format}`)).toEqual([
      'assistant/content',
      'io.modelcontextprotocol/ui/structured',
    ]);
    const failure = failureOf(run.kept);
    expect(failure).toMatchObject({ class: 'governance', code: 'auth_required' });
    expect(run.modelSaw).toEqual({
      type: 'content',
      value: [
        {
          type: 'text',
          text: `Searching for Globex needs a directory sign-in.\n\n${toolFailureNote(failure)}`,
        },
      ],
    });
    for (const hidden of ['view_opaque_token', 'cust_1042', 'io.modelcontextprotocol/'])
      expect(JSON.stringify(run.modelSaw)).not.toContain(hidden);
  });

  it('the model’s input holds no _meta key in any run (with and without the note, with outputs), while the application keeps the failure object', () => {
    expectModelInputsHidden(
      Object.entries(runs).flatMap(([name, run]) =>
        name === 'retryOnThrow' ? [] : [[name, run as AgentRun] as [string, AgentRun]],
      ),
    );
    expect(runs.governance.kept._meta?.['com.example/audit']).toEqual({ ticket: 'A-1' });
  });

  it('never invites the model to resend a non-idempotent call: send_payment’s retryable failure is sent once, its note says only with the user’s consent', () => {
    const run = runs.payment;
    expect(run.attempts).toBe(1);
    const failure = expectServerTextAndNote(run, 'The payment gateway timed out.', {
      idempotentHint: false,
    });
    expectSentOnceWithConsent(run, failure, run.modelSaw.value[1]!.text);
  });

  it("one call makes at most maxAttempts requests beside the client's own maxRetries, and retryOnThrow is refused in one line", () => {
    const run = runs.exhausted;
    // maxAttempts 3 (the default policy) with the client's maxRetries: 2: still 3, not 9.
    expect(run.serverCalls.map((c) => c.tool)).toEqual([
      'always_busy',
      'always_busy',
      'always_busy',
    ]);
    expect(run.attempts).toBe(3);
    expect(run.serverCalls.at(-1)!.at).toBeLessThanOrEqual(run.modelTurns[1]!);
    expect(
      expectServerTextAndNote(run, 'The upstream is down.', { idempotentHint: true }).class,
    ).toBe('reliability');
    expect(run.modelSaw.value[1]!.text).toContain('\nretry: yes\n');
    expect(runs.retryOnThrow).toEqual({
      name: 'RangeError',
      message:
        "@omcp/instrumentation-mcp/frameworks/ai-sdk: retryOnThrow is not allowed here: the framework's client retries the errors it throws, and the attempts would multiply",
    });
  });
});

// This project has the AI SDK but not @langchain/mcp-adapters.
itSaysFrameworkMissing(
  RUNTIMES[0]!,
  () => project,
  { adapter: 'langchain', framework: '@langchain/mcp-adapters' },
  ['missing.mjs', 'ai-sdk'],
);

itDocumentsTheAgentLoop(RUNTIMES[0]!, () => project, {
  name: 'ai-sdk',
  app: 'ai-sdk-agent.mjs',
  typings: 'AI SDK',
  before: `import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { ToolSet } from 'ai';
const transport = new Experimental_StdioMCPTransport({ command: 'node', args: ['server.mjs'] });`,
  after: `const set: ToolSet = tools;
console.log(Object.keys(set));
await mcp.close();`,
});
