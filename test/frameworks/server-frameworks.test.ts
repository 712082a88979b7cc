/**
 * Server frameworks beside the SDK, as users install them: a fresh project from the pinned lock
 * file of test/fixtures/server-frameworks (fastmcp 4.20.16 over SDK 1.32.2, tmcp 1.20.0 with
 * @tmcp/transport-stdio 0.5.0 and @tmcp/transport-http 0.9.0), the packed tarball added, on
 * Node.js 20, 22 and 24. Each server runs as a stdio child process (tmcp also over Streamable HTTP
 * on 127.0.0.1), once plainly and once under
 * `node --import @omcp/instrumentation-mcp/register`, exporting over OTLP/HTTP to a receiver on
 * 127.0.0.1; the official SDK client in this process calls its tools, so every call goes through
 * the framework's own tool execution.
 */
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { ReceivedSpan } from '../helpers/otlp-receiver.js';
import { runtimes } from '../helpers/runtimes.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  REGISTER,
  callTools,
  callToolsOver,
  failureOf,
  otlpEnv,
  startHttpServer,
  useServerProjects,
  withoutFailure,
  type Outcome,
} from './server-install.js';

const t = setupTelemetry();
const RUNTIMES = runtimes();
const setup = useServerProjects('server-frameworks', RUNTIMES, [
  'fastmcp-server.mjs',
  'tmcp-server.mjs',
  'user-error-rules.json',
]);

/** The SERVER span of `service` in trace `traceId`, once exported. */
async function serverSpan(service: string, traceId: string): Promise<ReceivedSpan> {
  const match = (s: ReceivedSpan): boolean =>
    s.serviceName === service && s.kind === 2 && s.traceId === traceId;
  await setup.receiver.waitFor((spans) => spans.some(match), 10_000);
  return setup.receiver.spans.find(match)!;
}

/** The failure's class, code and retryable (those it has), by call label. */
function classes(outcomes: Record<string, Outcome>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [label, outcome] of Object.entries(outcomes)) {
    const failure = failureOf(outcome);
    out[label] =
      failure === undefined
        ? undefined
        : Object.fromEntries(
            ['class', 'code', 'retryable', 'agentGuidance']
              .filter((k) => failure[k] !== undefined)
              .map((k) => [k, failure[k]]),
          );
  }
  return out;
}

/**
 * Each failure's `correlationId` is one trace: the client span of the call in this process and
 * the server span (a child of it, named and attributed like the SDK's) in the child process.
 */
async function expectOneTrace(
  service: string,
  outcomes: Record<string, Outcome>,
  tools: Record<string, { name: string }>,
): Promise<void> {
  for (const [label, outcome] of Object.entries(outcomes)) {
    const failure = failureOf(outcome);
    if (failure === undefined) continue;
    const traceId = failure.correlationId as string;
    const client = t
      .finished()
      .find((s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === traceId);
    expect(client?.name, label).toBe(`tools/call ${tools[label]!.name}`);
    const server = await serverSpan(service, traceId);
    expect(server.name, label).toBe(`tools/call ${tools[label]!.name}`);
    expect(server.parentSpanId, label).toBe(client!.spanContext().spanId);
    expect(server.attributes['mcp.method.name'], label).toBe('tools/call');
    expect(server.attributes['gen_ai.tool.name'], label).toBe(tools[label]!.name);
    expect(server.attributes['mcp.tool.failure.class'], label).toBe(failure.class);
    expect(server.attributes['mcp.tool.failure.code'], label).toBe(failure.code);
    expect(server.attributes['error.type'], label).toBe('tool_error');
  }
}

const FASTMCP_CALLS = {
  refuse: { name: 'refuse', arguments: { account: 'acme' } },
  refuse_with_extras: { name: 'refuse_with_extras', arguments: {} },
  refuse_subclass: { name: 'refuse_subclass', arguments: {} },
  slow: { name: 'slow', arguments: {} },
  boom: { name: 'boom', arguments: {} },
  reset: { name: 'reset', arguments: {} },
  ok: { name: 'ok', arguments: {} },
};

const TMCP_CALLS = {
  throws: { name: 'boom', arguments: { n: 1 } },
  bad_arguments: { name: 'boom', arguments: { n: 'one' } },
  unknown_tool: { name: 'nope', arguments: {} },
  refuse: { name: 'refuse', arguments: {} },
  denied: { name: 'denied', arguments: {} },
  ok: { name: 'ok', arguments: {} },
};

describe('fastmcp 4.20.16 with classification rules (Node.js 20)', () => {
  it('a rule on the name UserError comes before the fastmcp classification; other errors keep theirs', async () => {
    const runtime = RUNTIMES[0]!;
    const calls = { refuse: FASTMCP_CALLS.refuse, boom: FASTMCP_CALLS.boom };
    // docs/frameworks.md shows this file.
    const traced = await callTools(
      runtime,
      setup.project(runtime.major),
      [...REGISTER, 'fastmcp-server.mjs'],
      {
        ...otlpEnv(setup.receiver.url, 'fastmcp-rules'),
        OTEL_INSTRUMENTATION_MCP_CLASSIFICATION_RULES: './user-error-rules.json',
      },
      calls,
    );
    expect(classes(traced.outcomes)).toEqual({
      refuse: { class: 'governance', code: 'policy_blocked' },
      boom: { class: 'reliability', code: 'internal_error', retryable: false },
    });
  }, 60_000);
});

describe.each(RUNTIMES)('Node.js $major', (runtime) => {
  it('fastmcp 4.20.16, zero-code: a UserError is capability/invalid_input, its timeout reliability/timeout; results unchanged but for the failure object', async () => {
    const dir = setup.project(runtime.major);
    const service = `fastmcp-node${runtime.major}`;
    const plain = await callTools(runtime, dir, ['fastmcp-server.mjs'], {}, FASTMCP_CALLS);
    const traced = await callTools(
      runtime,
      dir,
      [...REGISTER, 'fastmcp-server.mjs'],
      otlpEnv(setup.receiver.url, service),
      FASTMCP_CALLS,
    );
    expect(classes(plain.outcomes)).toEqual(
      Object.fromEntries(Object.keys(FASTMCP_CALLS).map((k) => [k, undefined])),
    );
    for (const label of Object.keys(FASTMCP_CALLS))
      expect(withoutFailure(traced.outcomes[label]), label).toEqual(plain.outcomes[label]);
    expect(classes(traced.outcomes)).toEqual({
      refuse: { class: 'capability', code: 'invalid_input' },
      refuse_with_extras: { class: 'capability', code: 'invalid_input' },
      refuse_subclass: { class: 'capability', code: 'invalid_input' },
      slow: { class: 'reliability', code: 'timeout', retryable: true },
      // Thrown errors other than UserError: the built-in rules, as on the SDK's McpServer.
      boom: { class: 'reliability', code: 'internal_error', retryable: false },
      reset: { class: 'reliability', code: 'retryable_transient_error', retryable: true },
      ok: undefined,
    });
    // fastmcp's own texts reach the caller as they were (a UserError without its prefix).
    expect(traced.outcomes.refuse?.result?.content).toEqual([
      { type: 'text', text: 'Account acme is closed; choose another account.' },
    ]);
    expect(traced.outcomes.refuse_with_extras?.result?.structuredContent).toEqual({
      used: 100,
      limit: 100,
    });
    await expectOneTrace(service, traced.outcomes, FASTMCP_CALLS);
    // The patch knew the module's shape: no line says otherwise.
    expect(traced.stderr).not.toMatch(/please report this version/);
  }, 120_000);

  it('tmcp 1.20.0, zero-code: server spans in the caller trace, error results classified, a thrown ToolFailureError its failure result', async () => {
    const dir = setup.project(runtime.major);
    const service = `tmcp-node${runtime.major}`;
    const plain = await callTools(runtime, dir, ['tmcp-server.mjs'], {}, TMCP_CALLS);
    t.reset();
    const traced = await callTools(
      runtime,
      dir,
      [...REGISTER, 'tmcp-server.mjs'],
      otlpEnv(setup.receiver.url, service),
      TMCP_CALLS,
      // tmcp's stdio transport ends the process with process.exit() once stdin closes, which
      // skips the flush on beforeExit: the spans are awaited while the server still runs.
      () =>
        setup.receiver.waitFor(
          (spans) =>
            spans.filter((s) => s.serviceName === service && s.name.startsWith('tools/call '))
              .length === Object.keys(TMCP_CALLS).length,
          10_000,
        ),
    );
    for (const label of Object.keys(TMCP_CALLS))
      if (label !== 'denied')
        expect(withoutFailure(traced.outcomes[label]), label).toEqual(plain.outcomes[label]);
    expect(classes(traced.outcomes)).toEqual({
      throws: undefined,
      bad_arguments: { class: 'capability', code: 'invalid_input' },
      unknown_tool: { class: 'capability', code: 'capability_unsupported' },
      refuse: { class: 'reliability', code: 'internal_error', retryable: false },
      denied: {
        class: 'governance',
        code: 'permission_denied',
        agentGuidance: 'Ask the user to grant the mail permission.',
      },
      ok: undefined,
    });
    // Uninstrumented, tmcp answers a thrown ToolFailureError like any thrown error.
    expect(plain.outcomes.denied?.error?.code).toBe(-32603);
    expect(traced.outcomes.denied?.result?.content).toEqual([
      { type: 'text', text: 'This account may not send mail.' },
    ]);
    await expectOneTrace(service, traced.outcomes, TMCP_CALLS);
    // A tool that throws: tmcp answers with a JSON-RPC error, recorded on the server span.
    expect(traced.outcomes.throws?.error?.code).toBe(-32603);
    const client = t
      .finished()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call boom');
    const server = await serverSpan(service, client!.spanContext().traceId);
    expect(server.parentSpanId).toBe(client!.spanContext().spanId);
    expect(server.attributes['rpc.response.status_code']).toBe('-32603');
    expect(server.attributes['error.type']).toBe('-32603');
    // The initialize and tools/list requests get their spans too.
    const names = setup.receiver.spans.filter((s) => s.serviceName === service).map((s) => s.name);
    expect(names).toContain('initialize');
    expect(traced.stderr).not.toMatch(/please report this version/);
  }, 120_000);

  it('tmcp 1.20.0 over @tmcp/transport-http 0.9.0, zero-code: server spans in the caller trace with the session id, error results classified', async () => {
    const service = `tmcp-http-node${runtime.major}`;
    const server = await startHttpServer(
      runtime,
      setup.project(runtime.major),
      [...REGISTER, 'tmcp-server.mjs'],
      otlpEnv(setup.receiver.url, service),
      'tmcp-fixture: listening',
    );
    const calls = { refuse: TMCP_CALLS.refuse, denied: TMCP_CALLS.denied };
    let outcomes: Record<string, Outcome>;
    try {
      outcomes = await callToolsOver(new StreamableHTTPClientTransport(server.url), calls);
    } finally {
      server.stop();
    }
    expect(classes(outcomes)).toEqual({
      refuse: { class: 'reliability', code: 'internal_error', retryable: false },
      denied: {
        class: 'governance',
        code: 'permission_denied',
        agentGuidance: 'Ask the user to grant the mail permission.',
      },
    });
    await expectOneTrace(service, outcomes, calls);
    const spans = setup.receiver.spans.filter((s) => s.serviceName === service);
    const sessions = new Set(spans.map((s) => s.attributes['mcp.session.id']));
    expect(sessions.size).toBe(1);
    expect([...sessions][0]).toMatch(/^[0-9a-f-]{36}$/);
  }, 60_000);
});
