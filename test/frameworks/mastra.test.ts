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
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimes, type Runtime } from '../helpers/runtimes.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { copiesOf, pack } from '../packaging/install.js';
import {
  docsRegion,
  frameworkProject,
  frameworksDocBlocks,
  linesByTool,
  loadAdapter,
  missingFrameworkLine,
  runApp,
  serverCalls,
  wrapChecks,
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

const CLIENT = 3;
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

let project: string;
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  project = await frameworkProject('mastra', supported[0]!, pack());
}, 600_000);

afterAll(async () => {
  await receiver?.close();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
}, 120_000);

describe('the Mastra project', () => {
  it('has @mastra/mcp’s own nested @modelcontextprotocol/client 2.0.0 beside the app’s 2.4.0', () => {
    expect(
      copiesOf(project, '@modelcontextprotocol/client')
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
      const callsFile = join(project, `calls-mastra-${major}.jsonl`);
      const service = `mastra-${major}`;
      const result = await runApp(runtime, project, 'mastra-app.mjs', TOOLS, {
        CALLS_FILE: callsFile,
        TRACED_TRACEPARENT,
        OTEL_SERVICE_NAME: service,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      });
      expect(result.code, result.stderr).toBe(0);
      lines = linesByTool<AppLine>(result.stdout);
      calls = serverCalls(callsFile);
      // Spans of the server process that dies (busy_then_gone, last) may never be exported.
      await receiver.waitFor(
        (all) => all.filter((s) => s.serviceName === service && s.kind === SERVER).length >= 8,
      );
      spans = receiver.spans.filter((s) => s.serviceName === service);
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
      expect(text).toBe(
        [
          'Refunds need approval',
          '',
          '[tool failure]',
          'class: governance',
          'code: approval_required',
          'retry: no',
          'guidance: A refund needs a manager to approve it; ask the person to request approval.',
          `reference: ${reference} (quote this when reporting the problem)`,
        ].join('\n'),
      );
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
              text: [
                'Refunds need approval',
                '',
                '[tool failure]',
                'class: governance',
                'code: approval_required',
                'retry: no',
                'guidance: A refund needs a manager to approve it; ask the person to request approval.',
                `reference: ${String(failure.correlationId)} (quote this when reporting the problem)`,
              ].join('\n'),
            },
          ],
          isError: true,
        },
      });
    });

    it("hands the model no _meta key in either mode ('throw' and 'return'), the failure object's and the server's others", () => {
      expect([...lines.keys()].sort()).toEqual([...TOOLS].sort());
      for (const [tool, line] of lines) {
        expect(line.modelTurns, tool).toBe(2);
        for (const hidden of HIDDEN) expect(line.modelInput, tool).not.toContain(hidden);
      }
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
      const turn = spans.find((s) => s.name === 'turn billing_lookup_invoice')!;
      const trace = spans.filter((s) => s.traceId === turn.traceId);
      const clients = trace.filter(
        (s) => s.kind === CLIENT && s.name === 'tools/call lookup_invoice',
      );
      const servers = trace.filter(
        (s) => s.kind === SERVER && s.name === 'tools/call lookup_invoice',
      );
      expect(clients).toHaveLength(2);
      expect(servers).toHaveLength(2);
      const clientIds = new Set(clients.map((s) => s.spanId));
      for (const server of servers) expect(clientIds.has(server.parentSpanId!)).toBe(true);
      // One traceparent per request, ours (Mastra adds one only when its traceContext is set).
      for (const call of callsOf('lookup_invoice'))
        expect(call.traceparent).toContain(turn.traceId);
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

describe('the adapters as optional peers', () => {
  it.each(['load.mjs', 'load.cjs'] as const)(
    'frameworks/mastra loads beside its framework (%s)',
    async (file) => {
      const result = await loadAdapter(supported[0]!, project, 'mastra', file);
      expect(result.stdout).toBe('imported\n');
    },
  );

  // This project has no @openai/agents-core: the other adapter says so in one line.
  it.each(['load.mjs', 'load.cjs'] as const)(
    'frameworks/openai-agents without @openai/agents-core says so in one line (%s)',
    async (file) => {
      const result = await loadAdapter(supported[0]!, project, 'openai-agents', file);
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(missingFrameworkLine('openai-agents', '@openai/agents-core'));
    },
  );
});

describe('withToolFailures (frameworks/mastra) on bad input', () => {
  it('refuses an object that is not the framework’s, and a policy with retryOnThrow, at wrap time; wrapping twice changes nothing', async () => {
    const checks = await wrapChecks(supported[0]!, project, 'mastra');
    expect(checks.notTheFramework).toBe(
      'TypeError: withToolFailures (mastra) expects an MCPClient of @mastra/mcp 2.x (with getOrCreateClient() and mcpClientsById); this object lacks them, so its tool calls cannot be reached',
    );
    expect(checks.retryOnThrow).toMatch(
      /^RangeError: withToolFailures \(mastra\): retryOnThrow is not allowed here/,
    );
    expect(checks.sameObject).toBe(true);
  });
});
