/**
 * The Mastra adapter in a real install: @mastra/mcp 2.0.0 and @mastra/core 1.71.0 from
 * test/fixtures/mastra/ (npm ci; @mastra/mcp gets its nested @modelcontextprotocol/client
 * 2.0.0 beside the project's 2.4.0), this package from its packed tarball. The app
 * (test/frameworks/b/mastra-app.mjs) runs a Mastra Agent with Mastra's own scripted model
 * (MastraLanguageModelV2Mock) over an MCPClient whose server runs on stdio, under the register
 * entry, once with Mastra's default `onToolError: 'throw'` and once with `'return'`; the test
 * reads the tool message Mastra put in the model's next prompt, the tool result the
 * application got, the calls the server received and the spans both processes exported.
 * @mastra/core needs Node.js >= 22.13: it runs on 22 and 24, installed once with 22's npm.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runtimes, type Runtime } from '../helpers/runtimes.js';
import type { ReceivedSpan } from '../helpers/otlp-receiver.js';
import { copiesOf } from '../packaging/install.js';
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
  /** The tool result part's `output` in the model's next prompt. */
  modelSaw: { type: string; value: unknown };
  /** Every prompt the model got in the run, as JSON. */
  modelInput: string;
  toolResult?: { result?: Record<string, unknown> };
  text: string;
}

const SERVER = 2;
const KEY = 'io.modelcontextprotocol/toolFailure';
/** `billing` and `payments` have Mastra's default onToolError ('throw'), `ledger` has 'return'. */
const TOOLS = [
  'billing_lookup_invoice',
  'billing_refund_invoice',
  'billing_always_busy',
  'billing_find_customer',
  'ledger_refund_invoice',
  'traced_find_customer',
  'payments_send_payment',
  'ledger_send_payment',
  'billing_busy_then_gone',
];
/** What no model input may hold: a `_meta` key, the failure object (its key, its fields), the servers' others. */
const HIDDEN = ['"correlationId"', '"_meta"', KEY, 'com.example/'];
const CONSENT = "retry: only with the user's consent (the tool is not declared safe to repeat)";
/** The traceparent Mastra's `traceContext` gives for the `traced` server. */
const TRACED_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACED_TRACEPARENT = `00-${TRACED_TRACE_ID}-b7ad6b7169203331-01`;
const supported = runtimes().filter((r) => r.major >= 22);

const setup = useFrameworkProject('mastra', supported[0]!);

describe('the Mastra project', () => {
  it('has @mastra/mcp’s own nested @modelcontextprotocol/client 2.0.0 beside the app’s 2.4.0', () => {
    expect(
      copiesOf(setup.project, '@modelcontextprotocol/client')
        .map((c) => c.version)
        .sort(),
    ).toEqual(['2.0.0', '2.4.0']);
  });
});

describe.each(supported.map((runtime) => [runtime.major, runtime] as [number, Runtime]))(
  'Mastra adapter on Node.js %i',
  (major, runtime) => {
    let lines: Map<string, AppLine>;
    let calls: ServerCall[];
    let spans: ReceivedSpan[];

    beforeAll(async () => {
      // Spans of the server process that dies (busy_then_gone, last) may never be exported.
      ({ lines, calls, spans } = await runAppTraced<AppLine>(
        setup,
        runtime,
        'mastra-app.mjs',
        TOOLS,
        { name: 'mastra', serverSpans: 8, env: { TRACED_TRACEPARENT } },
      ));
    }, 240_000);

    const callsOf = (tool: string, server = 'billing') =>
      calls.filter((c) => c.tool === tool && c.server === server);
    const seen = (tool: string) => lines.get(`billing_${tool}`)!.modelSaw;

    it('retries a transient reliability failure inside Mastra’s tool execution, not before retryNotBefore', () => {
      const [first, second, ...more] = callsOf('lookup_invoice');
      expect(more).toEqual([]);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(300);
      expect(lines.get('billing_lookup_invoice')!.modelTurns).toBe(2);
      expect(seen('lookup_invoice')).toEqual({
        type: 'json',
        value: { content: [{ type: 'text', text: 'Invoice 42: paid' }] },
      });
    });

    it('hands a governance failure on at once: the MastraError text the model gets holds the reference and the guidance', () => {
      expect(callsOf('refund_invoice')).toHaveLength(1);
      const output = seen('refund_invoice');
      expect(output.type).toBe('error-text');
      const text = String(output.value);
      const reference =
        /^reference: ([0-9a-f]{32}) \(quote this when reporting the problem\)$/m.exec(text)?.[1];
      expect(text).toBe(refundFailureText(String(reference)));
      // The reference is the trace of the server's span for that call.
      const server = spans.filter(
        (s) => s.kind === SERVER && s.name === 'tools/call refund_invoice',
      );
      expect(server.map((s) => s.traceId)).toContain(reference);
    });

    it('never retries a capability failure', () => {
      expect(callsOf('find_customer')).toHaveLength(1);
      expect(String(seen('find_customer').value)).toContain(
        'class: capability\ncode: resource_not_found',
      );
    });

    it('makes at most maxAttempts (3) tools/call requests for one call', () => {
      expect(callsOf('always_busy').map((c) => c.n)).toEqual([1, 2, 3]);
      expect(String(seen('always_busy').value)).toContain(
        'class: reliability\ncode: upstream_unavailable\nretry: yes',
      );
    });

    it('does not stack on Mastra’s reconnect-and-retry: a retry that loses the connection ends the call with the failure received', () => {
      // Attempt 2 kills the server. Mastra would reconnect and run the call again (up to 3
      // more attempts); the adapter hands back attempt 1's failure instead.
      expect(callsOf('busy_then_gone').map((c) => c.n)).toEqual([1, 2]);
      expect(String(seen('busy_then_gone').value)).toContain('[tool failure]\nclass: reliability');
    });

    it('keeps the failure object reachable in the result under onToolError: return', () => {
      expect(callsOf('refund_invoice', 'ledger')).toHaveLength(1);
      const line = lines.get('ledger_refund_invoice')!;
      const meta = line.toolResult!.result!._meta as Record<string, Record<string, unknown>>;
      const failure = meta[KEY]!;
      expect(failure).toMatchObject({ class: 'governance', code: 'approval_required' });
      expect(meta['com.example/audit']).toEqual({ ticket: 'A-1' });
      expect(line.toolResult!.result!.isError).toBe(true);
      // The model gets Mastra's JSON of the result, its text with the note, without its _meta.
      expect(line.modelSaw).toEqual({
        type: 'json',
        value: {
          content: [
            {
              type: 'text',
              text: refundFailureText(String(failure.correlationId)),
            },
          ],
          isError: true,
        },
      });
    });

    it("hands the model no _meta key in either mode ('throw' and 'return'), the failure object's and the server's others", () => {
      expectModelInputsWithout(lines, TOOLS, HIDDEN);
    });

    it('never invites the model to resend a non-idempotent call: send_payment’s retryable failure says only with the user’s consent, in both modes', () => {
      for (const server of ['payments', 'ledger']) {
        expect(callsOf('send_payment', server), server).toHaveLength(1);
        const line = lines.get(`${server}_send_payment`)!;
        const text =
          server === 'billing' ? String(line.modelSaw.value) : JSON.stringify(line.modelSaw.value);
        expect(line.modelInput).not.toContain('retry: yes');
        expect(text).toContain(`${CONSENT}, not before 20`);
      }
      // The application still reads the failure object under 'return'.
      const meta = lines.get('ledger_send_payment')!.toolResult!.result!._meta as Record<
        string,
        Record<string, unknown>
      >;
      expect(meta[KEY]).toMatchObject({
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
      });
    });

    it('makes one trace from the app’s span through the nested SDK client’s spans (zero-code) to the server’s spans', () => {
      // One traceparent per request, ours (Mastra adds one only when its traceContext is set).
      expectOneTrace(
        spans,
        'turn billing_lookup_invoice',
        'lookup_invoice',
        callsOf('lookup_invoice'),
      );
    });

    it('sends one traceparent, Mastra’s, when a server definition has a traceContext: the server’s span parents to it', () => {
      const [call, ...more] = callsOf('find_customer', 'traced');
      expect(more).toEqual([]);
      expect(call!.traceparent).toBe(TRACED_TRACEPARENT);
      const server = spans.find(
        (s) =>
          s.kind === SERVER &&
          s.name === 'tools/call find_customer' &&
          s.traceId === TRACED_TRACE_ID,
      );
      expect(server?.parentSpanId).toBe('b7ad6b7169203331');
    });
  },
);

describe('docs/frameworks.md, Mastra', () => {
  it('shows the lines the app runs', () => {
    expect(frameworksDocBlocks().join('\n')).toContain(docsRegion('mastra-app.mjs', 'mastra'));
  });
});

describeAdapterBesideFramework(
  setup,
  supported[0]!,
  'mastra',
  // This project has no @openai/agents-core.
  { adapter: 'openai-agents', framework: '@openai/agents-core' },
  'TypeError: withToolFailures (mastra) expects an MCPClient of @mastra/mcp 2.x (with getOrCreateClient() and mcpClientsById); this object lacks them, so its tool calls cannot be reached',
);
