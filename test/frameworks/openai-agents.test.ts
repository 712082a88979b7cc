/**
 * The OpenAI Agents JS adapter in a real install: @openai/agents-core 0.20.0 and the MCP SDK
 * 2.4.0 from test/fixtures/openai-agents/ (npm ci), this package from its packed tarball. The
 * app (test/frameworks/b/agents-app.mjs) runs the framework's Runner with a scripted model (its
 * own `Model` interface) against an MCP server on stdio, under the register entry; the test
 * reads what the Runner put in the model's next input, the output item's customData, the calls
 * the server received and the spans both processes exported. @openai/agents-core needs Node.js
 * 22 (its openai dependency says so): it runs on 22 and 24, installed once with 22's npm.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runtimes, type Runtime } from '../helpers/runtimes.js';
import type { ReceivedSpan } from '../helpers/otlp-receiver.js';
import {
  describeAdapterBesideFramework,
  docsRegion,
  expectModelInputsWithout,
  expectOneTrace,
  frameworksDocBlocks,
  refundFailureText,
  runAppTraced,
  useFrameworkProject,
  type ServerCall,
} from './helpers-b.js';

interface AppLine {
  tool: string;
  modelTurns: number;
  modelSaw: Array<{ type: string; text: string }>;
  /** Every input the model got in the run, as JSON. */
  modelInput: string;
  customData?: { toolFailure?: Record<string, unknown> };
  finalOutput: string;
}

const SERVER = 2;
const TOOLS = ['lookup_invoice', 'refund_invoice', 'always_busy', 'find_customer', 'send_payment'];
/** What no model input may hold: a `_meta` key, the failure object (its key, its fields), the server's others. */
const HIDDEN = [
  '"correlationId"',
  '"_meta"',
  'io.modelcontextprotocol/toolFailure',
  'com.example/',
];
const CONSENT = "retry: only with the user's consent (the tool is not declared safe to repeat)";
const supported = runtimes().filter((r) => r.major >= 22);

const setup = useFrameworkProject('openai-agents', supported[0]!);

describe.each(supported.map((runtime) => [runtime.major, runtime] as [number, Runtime]))(
  'OpenAI Agents JS adapter on Node.js %i',
  (major, runtime) => {
    let lines: Map<string, AppLine>;
    let calls: ServerCall[];
    let spans: ReceivedSpan[];

    beforeAll(async () => {
      // The server process exports under the same service name (it inherits the env).
      ({ lines, calls, spans } = await runAppTraced<AppLine>(
        setup,
        runtime,
        'agents-app.mjs',
        TOOLS,
        { name: 'agents', serverSpans: 7 },
      ));
    }, 180_000);

    const callsOf = (tool: string) => calls.filter((c) => c.tool === tool);
    const textSeen = (tool: string) =>
      lines
        .get(tool)!
        .modelSaw.map((b) => b.text)
        .join('\n');

    it('retries a transient reliability failure before the model’s next turn, not before retryNotBefore', () => {
      const [first, second, ...more] = callsOf('lookup_invoice');
      expect(more).toEqual([]);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(300);
      const line = lines.get('lookup_invoice')!;
      // The model's second turn is the next input after the tool call: it holds the answer.
      expect(line.modelTurns).toBe(2);
      expect(textSeen('lookup_invoice')).toBe('Invoice 42: paid');
      expect(line.customData).toBeUndefined();
    });

    it('hands a governance failure on at once, with the reference and the guidance in the model’s next input', () => {
      expect(callsOf('refund_invoice')).toHaveLength(1);
      const failure = lines.get('refund_invoice')!.customData!.toolFailure!;
      expect(failure).toMatchObject({ class: 'governance', code: 'approval_required' });
      expect(textSeen('refund_invoice')).toBe(refundFailureText(String(failure.correlationId)));
    });

    it('never retries a capability failure', () => {
      expect(callsOf('find_customer')).toHaveLength(1);
      expect(textSeen('find_customer')).toContain('class: capability\ncode: resource_not_found');
    });

    it('makes at most maxAttempts (3) tools/call requests for one call, then the model gets the failure', () => {
      expect(callsOf('always_busy').map((c) => c.n)).toEqual([1, 2, 3]);
      const line = lines.get('always_busy')!;
      expect(line.modelTurns).toBe(2);
      expect(textSeen('always_busy')).toContain(
        'class: reliability\ncode: upstream_unavailable\nretry: yes',
      );
    });

    it('hands the model no _meta key: neither the failure object nor the server’s other keys', () => {
      expectModelInputsWithout(lines, TOOLS, HIDDEN);
    });

    it('never invites the model to resend a non-idempotent call: send_payment’s retryable failure says only with the user’s consent', () => {
      expect(callsOf('send_payment')).toHaveLength(1);
      const line = lines.get('send_payment')!;
      expect(line.modelInput).not.toContain('retry: yes');
      expect(textSeen('send_payment')).toContain(`${CONSENT}, not before 20`);
      expect(line.customData!.toolFailure).toMatchObject({
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
      });
    });

    it('keeps the failure object reachable in the output item’s customData, its correlationId the server span’s trace', () => {
      const failure = lines.get('find_customer')!.customData!.toolFailure!;
      expect(failure).toEqual({
        class: 'capability',
        code: 'resource_not_found',
        correlationId: expect.stringMatching(/^[0-9a-f]{32}$/),
        agentGuidance: 'No such customer; ask the person for the customer number.',
      });
      const server = spans.find((s) => s.kind === SERVER && s.name === 'tools/call find_customer');
      expect(server?.traceId).toBe(failure.correlationId);
    });

    it('makes one trace from the app’s span through the Runner’s client spans to the server’s spans', () => {
      // What the server received carried the same trace.
      expectOneTrace(spans, 'turn lookup_invoice', 'lookup_invoice', callsOf('lookup_invoice'));
    });
  },
);

describe('docs/frameworks.md, OpenAI Agents JS', () => {
  it('shows the lines the app runs', () => {
    expect(frameworksDocBlocks().join('\n')).toContain(
      docsRegion('agents-app.mjs', 'openai-agents'),
    );
  });
});

describeAdapterBesideFramework(
  setup,
  supported[0]!,
  'openai-agents',
  // This project has no @mastra/mcp.
  { adapter: 'mastra', framework: '@mastra/mcp' },
  'TypeError: withToolFailures (openai-agents) expects an MCP server of @openai/agents-core 0.20 (MCPServerStdio, MCPServerStreamableHttp, MCPServerSSE) with callToolResult() and listTools()',
);
