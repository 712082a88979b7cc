import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  TOOL_FAILURE_META_KEY as KEY,
  ToolFailureError,
  toolFailure,
} from '../../packages/tool-failure/src/index.js';
import { Client, InMemoryTransport, McpServer, Server, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();
const HEX32 = /^[0-9a-f]{32}$/;

function serverSpan(name: string) {
  const s = t.finished().find((x) => x.name === name && x.kind === SpanKind.SERVER);
  if (s === undefined)
    throw new Error(
      `no server span ${name}: ${t
        .finished()
        .map((x) => x.name)
        .join(', ')}`,
    );
  return s;
}
function clientSpan(name: string) {
  const s = t.finished().find((x) => x.name === name && x.kind === SpanKind.CLIENT);
  if (s === undefined) throw new Error(`no client span ${name}`);
  return s;
}
/** Polls until `condition` holds or `timeoutMs` passes; the assertion after it says what is missing. */
async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}
const failureOf = (result: unknown) =>
  (result as { _meta?: Record<string, unknown> })._meta?.[KEY] as
    Record<string, unknown> | undefined;

function makeServer(): McpServer {
  const server = new McpServer({ name: 'srv', version: '1.0.0' });
  server.registerTool(
    'add',
    { inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }, extra) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: undefined,
      _meta: {
        sawSignal: extra.signal instanceof AbortSignal,
        traceId: trace.getActiveSpan()?.spanContext().traceId,
      },
    }),
  );
  server.registerTool('boom', {}, async () => {
    throw new Error('connect ECONNREFUSED 10.1.2.3:5432 (secret internal host)');
  });
  server.registerTool('flaky', {}, async () => {
    throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  });
  server.registerTool('needs-login', {}, async () => {
    throw new ToolFailureError({
      class: 'governance',
      code: 'auth_required',
      message: 'Not connected.',
      agentGuidance: 'Ask the user to log in.',
    });
  });
  server.registerTool('own-failure', {}, async () =>
    toolFailure({
      class: 'capability',
      code: 'quota_exceeded',
      correlationId: 'srv-req-42',
      agentGuidance: 'x'.repeat(1000),
    }),
  );
  server.registerTool('sync-throw', {}, () => {
    throw new Error('sync');
  });
  return server;
}

describe('server side (McpServer over an in-memory pair)', () => {
  let pair: Awaited<ReturnType<typeof connectPair<McpServer>>>;
  beforeEach(async () => {
    t.instrumentation.setConfig({});
    pair = await connectPair(makeServer());
    t.reset();
  });
  afterEach(async () => {
    await pair.close();
  });

  it('makes a SERVER span "tools/call {tool}" with the convention attributes, child of the client span', async () => {
    const result = await pair.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(result.content).toEqual([{ type: 'text', text: '3' }]);
    const server = serverSpan('tools/call add');
    const client = clientSpan('tools/call add');
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': expect.any(String),
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'inproc',
    });
    expect(server.attributes).not.toHaveProperty('error.type');
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.spanContext().traceId).toBe(client.spanContext().traceId);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(client.attributes['jsonrpc.request.id']).toBe(server.attributes['jsonrpc.request.id']);
  });

  it('with another metaKey, writes, reads and counts failures under that key only', async () => {
    const metaKey = 'com.example/toolFailure';
    t.instrumentation.setConfig({ metaKey });
    const own = (r: unknown) => (r as { _meta?: Record<string, unknown> })._meta ?? {};
    pair.server.registerTool('own-custom', {}, async () =>
      toolFailure({ class: 'capability', code: 'quota_exceeded' }, { metaKey }),
    );
    // A thrown error and a ToolFailureError: the failure object goes under the configured key.
    const thrown = await pair.client.callTool({ name: 'boom', arguments: {} });
    expect(Object.keys(own(thrown))).toEqual([metaKey]);
    expect(own(thrown)[metaKey]).toMatchObject({ class: 'reliability', code: 'internal_error' });
    const login = await pair.client.callTool({ name: 'needs-login', arguments: {} });
    expect(Object.keys(own(login))).toEqual([metaKey]);
    // The handler's own object under that key is read, not completed with a second one.
    const quota = await pair.client.callTool({ name: 'own-custom', arguments: {} });
    expect(Object.keys(own(quota))).toEqual([metaKey]);
    for (const kind of [SpanKind.SERVER, SpanKind.CLIENT]) {
      const span = t.finished().find((x) => x.name === 'tools/call own-custom' && x.kind === kind);
      expect(span?.attributes, String(kind)).toMatchObject({
        'mcp.tool.failure.class': 'capability',
        'mcp.tool.failure.code': 'quota_exceeded',
      });
    }
    expect(serverSpan('tools/call needs-login').attributes['mcp.tool.failure.code']).toBe(
      'auth_required',
    );
  });

  it('runs the handler inside the server span, with its arguments and extra intact', async () => {
    const result = await pair.client.callTool({ name: 'add', arguments: { a: 2, b: 2 } });
    const server = serverSpan('tools/call add');
    expect(result._meta).toMatchObject({ sawSignal: true, traceId: server.spanContext().traceId });
  });

  it('classifies a thrown error, adds a failure whose correlationId is the trace ID, keeps diagnostics on the server', async () => {
    const result = await pair.client.callTool({ name: 'boom', arguments: {} });
    const server = serverSpan('tools/call boom');
    const traceId = server.spanContext().traceId;
    expect(result.isError).toBe(true);
    expect(failureOf(result)).toEqual({
      class: 'reliability',
      code: 'internal_error',
      retryable: false,
      correlationId: traceId,
    });
    expect(JSON.stringify(result)).not.toContain('    at ');
    expect(server.attributes).toMatchObject({
      'error.type': 'tool_error',
      'mcp.tool.failure.class': 'reliability',
      'mcp.tool.failure.code': 'internal_error',
      'mcp.tool.failure.correlation_id': traceId,
      'mcp.tool.failure.source': 'instrumentation',
    });
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    expect(server.status.message).toContain('ECONNREFUSED');
    // Exceptions go to the log record (the exception conventions), not to a span event.
    expect(server.events.filter((e) => e.name === 'exception')).toEqual([]);
    const logs = await t.logRecords();
    const log = logs.find((l) => l.spanContext?.traceId === traceId);
    expect(log?.spanContext?.spanId).toBe(server.spanContext().spanId);
    expect(log?.body).toContain(traceId);
    expect(log?.attributes).toMatchObject({
      'mcp.tool.failure.correlation_id': traceId,
      'exception.type': 'Error',
    });
    expect(String(log?.attributes['exception.message'])).toContain('ECONNREFUSED');
    expect(String(log?.attributes['exception.stacktrace'])).toContain('server.test.ts');
  });

  it("exceptionSignal 'logs/dup' also records the exception as a span event", async () => {
    t.instrumentation.setConfig({ exceptionSignal: 'logs/dup' });
    await pair.client.callTool({ name: 'boom', arguments: {} });
    const server = serverSpan('tools/call boom');
    const exception = server.events.find((e) => e.name === 'exception');
    expect(exception?.attributes?.['exception.stacktrace']).toContain('ECONNREFUSED');
    const logs = await t.logRecords();
    expect(logs.some((l) => l.spanContext?.spanId === server.spanContext().spanId)).toBe(true);
  });

  // The budgets refill by `performance.now()`, read from the global `performance` at each take:
  // faking only that clock (the SDK's timers stay real) makes time pass only when a test advances
  // it, so the counts below hold however fast the machine runs the calls.
  describe('failure storms, on a fake clock for the rate budgets', () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['performance'] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('in a failure storm, records the stack of the first errors per second per tool and exception type, and everything else of every error', async () => {
      t.instrumentation.setConfig({ maxStackTracesPerSecond: 2 });
      for (let i = 0; i < 5; i++) await pair.client.callTool({ name: 'boom', arguments: {} });
      await pair.client.callTool({ name: 'flaky', arguments: {} });
      const records = await t.logRecords();
      const boom = records.filter((l) => l.attributes['gen_ai.tool.name'] === 'boom');
      expect(boom).toHaveLength(5);
      for (const l of boom) {
        expect(l.attributes).toMatchObject({
          'exception.type': 'Error',
          'mcp.tool.failure.code': 'internal_error',
        });
        expect(String(l.attributes['exception.message'])).toContain('ECONNREFUSED');
      }
      expect(boom.map((l) => typeof l.attributes['exception.stacktrace'])).toEqual([
        'string',
        'string',
        'undefined',
        'undefined',
        'undefined',
      ]);
      // Another tool has its own budget.
      const flaky = records.find((l) => l.attributes['gen_ai.tool.name'] === 'flaky');
      expect(String(flaky?.attributes['exception.stacktrace'])).toContain('socket hang up');
      // A second later the budget is full again.
      vi.advanceTimersByTime(1_000);
      t.reset();
      for (let i = 0; i < 3; i++) await pair.client.callTool({ name: 'boom', arguments: {} });
      const again = (await t.logRecords()).map((l) => typeof l.attributes['exception.stacktrace']);
      expect(again).toEqual(['string', 'string', 'undefined']);
    });

    it('with maxStackTracesPerSecond: Infinity every stack is recorded; an omitted one stays out of the span event too', async () => {
      t.instrumentation.setConfig({
        maxStackTracesPerSecond: Infinity,
        maxFailureLogsPerSecond: 20,
      });
      for (let i = 0; i < 12; i++) await pair.client.callTool({ name: 'boom', arguments: {} });
      const records = await t.logRecords();
      expect(
        records.filter((l) => typeof l.attributes['exception.stacktrace'] === 'string'),
      ).toHaveLength(12);
      t.instrumentation.setConfig({ maxStackTracesPerSecond: 0, exceptionSignal: 'logs/dup' });
      t.reset();
      await pair.client.callTool({ name: 'boom', arguments: {} });
      const event = serverSpan('tools/call boom').events.find((e) => e.name === 'exception');
      expect(event?.attributes).toMatchObject({ 'exception.type': 'Error' });
      expect(String(event?.attributes?.['exception.message'])).toContain('ECONNREFUSED');
      expect(event?.attributes?.['exception.stacktrace']).toBeUndefined();
    });

    it('in a failure storm, emits the first log records per second per tool, code and type; every failure keeps its span; the next record says how many were left out', async () => {
      t.instrumentation.setConfig({ maxFailureLogsPerSecond: 2 });
      const boomFailures = async () =>
        (await t.metric('mcp.server.tool.failures'))
          .filter((p) => p.attributes['gen_ai.tool.name'] === 'boom')
          .reduce((sum, p) => sum + Number(p.value), 0);
      const before = await boomFailures();
      for (let i = 0; i < 6; i++) await pair.client.callTool({ name: 'boom', arguments: {} });
      await pair.client.callTool({ name: 'flaky', arguments: {} });
      let boom = (await t.logRecords()).filter((l) => l.attributes['gen_ai.tool.name'] === 'boom');
      expect(boom).toHaveLength(2);
      for (const l of boom) {
        expect(l.attributes['mcp.tool.failure.suppressed_records']).toBeUndefined();
        expect(String(l.attributes['exception.stacktrace'])).toContain('ECONNREFUSED');
      }
      // Every failure is on its span and counted, record or not.
      const spans = t.finished().filter((s) => s.name === 'tools/call boom' && s.kind === 1);
      expect(spans).toHaveLength(6);
      for (const s of spans) expect(s.attributes['mcp.tool.failure.code']).toBe('internal_error');
      expect((await boomFailures()) - before).toBe(6);
      // Another tool has its own budget.
      expect(
        (await t.logRecords()).filter((l) => l.attributes['gen_ai.tool.name'] === 'flaky'),
      ).toHaveLength(1);
      // Half a second refills one token: the next record carries the four left out.
      vi.advanceTimersByTime(500);
      t.reset();
      await pair.client.callTool({ name: 'boom', arguments: {} });
      boom = (await t.logRecords()).filter((l) => l.attributes['gen_ai.tool.name'] === 'boom');
      expect(boom).toHaveLength(1);
      expect(boom[0]?.attributes['mcp.tool.failure.suppressed_records']).toBe(4);
    });

    it('with maxFailureLogsPerSecond: Infinity every failure has its record', async () => {
      // A new stack rate gets a fresh stack budget (the budgets outlive setConfig otherwise).
      t.instrumentation.setConfig({
        maxFailureLogsPerSecond: Infinity,
        maxStackTracesPerSecond: 9,
      });
      for (let i = 0; i < 25; i++) await pair.client.callTool({ name: 'boom', arguments: {} });
      const boom = (await t.logRecords()).filter(
        (l) => l.attributes['gen_ai.tool.name'] === 'boom',
      );
      expect(boom).toHaveLength(25);
      // The stack budget still applies within them.
      expect(boom.filter((l) => l.attributes['exception.stacktrace'] !== undefined)).toHaveLength(
        9,
      );
    });
  });

  it('classifies an error thrown inside a span the tool started itself, and keeps the tool span its child', async () => {
    const server = new McpServer({ name: 'nested', version: '1.0.0' });
    server.registerTool('nested', {}, async () =>
      trace.getTracer('tool').startActiveSpan('tool work', async (span) => {
        try {
          // Contexts derived from the call's context still carry the call.
          await context.with(context.active().setValue(Symbol('x'), 1), async () => {
            await new Promise((r) => setTimeout(r, 1));
            throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          });
        } finally {
          span.end();
        }
        return { content: [] };
      }),
    );
    const nested = await connectPair(server);
    t.reset();
    const result = await nested.client.callTool({ name: 'nested', arguments: {} });
    await nested.close();
    const serverSide = serverSpan('tools/call nested');
    expect(failureOf(result)).toMatchObject({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      correlationId: serverSide.spanContext().traceId,
    });
    const work = t.finished().find((s) => s.name === 'tool work');
    expect(work?.parentSpanContext?.spanId).toBe(serverSide.spanContext().spanId);
    expect(serverSide.status.message).toBe('socket hang up');
  });

  it('without failure logs, the exception is kept as a span event', async () => {
    t.instrumentation.setConfig({ emitFailureLogs: false });
    await pair.client.callTool({ name: 'boom', arguments: {} });
    const server = serverSpan('tools/call boom');
    expect(server.events.map((e) => e.name)).toEqual(['exception']);
    expect(String(server.events[0]?.attributes?.['exception.message'])).toContain('ECONNREFUSED');
    expect(await t.logRecords()).toEqual([]);
  });

  it('with redactThrownErrorText, sends a short line instead of the thrown message, which stays on the server', async () => {
    t.instrumentation.setConfig({ redactThrownErrorText: true });
    const result = await pair.client.callTool({ name: 'boom', arguments: {} });
    const login = await pair.client.callTool({ name: 'needs-login', arguments: {} });
    const traceId = serverSpan('tools/call boom').spanContext().traceId;
    expect(result.content).toEqual([
      {
        type: 'text',
        text: `The tool failed (reliability: internal_error). Reference: ${traceId}.`,
      },
    ]);
    expect(JSON.stringify(result)).not.toContain('10.1.2.3');
    const logs = await t.logRecords();
    const log = logs.find((l) => l.spanContext?.traceId === traceId);
    expect(String(log?.attributes['exception.message'])).toContain('10.1.2.3');
    // A ToolFailureError's message is written for the caller: kept.
    expect(login.content).toEqual([{ type: 'text', text: 'Not connected.' }]);
  });

  it('classifies network errors as retryable reliability failures', async () => {
    const result = await pair.client.callTool({ name: 'flaky', arguments: {} });
    expect(failureOf(result)).toMatchObject({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
    });
  });

  it('turns a thrown ToolFailureError into exactly the failure it describes', async () => {
    const result = await pair.client.callTool({ name: 'needs-login', arguments: {} });
    const traceId = serverSpan('tools/call needs-login').spanContext().traceId;
    expect(result.content).toEqual([{ type: 'text', text: 'Not connected.' }]);
    expect(failureOf(result)).toEqual({
      class: 'governance',
      code: 'auth_required',
      agentGuidance: 'Ask the user to log in.',
      correlationId: traceId,
    });
  });

  it('catches synchronous throws too', async () => {
    const result = await pair.client.callTool({ name: 'sync-throw', arguments: {} });
    expect(failureOf(result)).toMatchObject({ class: 'reliability', code: 'internal_error' });
  });

  it('leaves a failure object the handler supplied unchanged and records its correlationId', async () => {
    const result = await pair.client.callTool({ name: 'own-failure', arguments: {} });
    expect(failureOf(result)).toEqual({
      class: 'capability',
      code: 'quota_exceeded',
      correlationId: 'srv-req-42',
      agentGuidance: 'x'.repeat(1000),
    });
    const server = serverSpan('tools/call own-failure');
    expect(server.attributes['mcp.tool.failure.correlation_id']).toBe('srv-req-42');
    expect(server.attributes['mcp.tool.failure.source']).toBe('server');
    expect(String(server.attributes['mcp.tool.failure.agent_guidance']).length).toBeLessThanOrEqual(
      256,
    );
  });

  it('records failures the SDK produces before the handler: unknown tool and invalid arguments', async () => {
    const unknown = await pair.client.callTool({ name: 'nope', arguments: {} });
    expect(failureOf(unknown)).toMatchObject({
      class: 'capability',
      code: 'capability_unsupported',
    });
    expect(serverSpan('tools/call nope').attributes).toMatchObject({
      'error.type': 'tool_error',
      'mcp.tool.failure.code': 'capability_unsupported',
    });
    const invalid = await pair.client.callTool({ name: 'add', arguments: { a: 'x' } });
    expect(failureOf(invalid)).toMatchObject({ class: 'capability', code: 'invalid_input' });
    expect(failureOf(invalid)?.correlationId).toMatch(HEX32);
  });

  it('makes a span for every other request method too', async () => {
    await pair.client.listTools();
    await pair.client.ping();
    expect(serverSpan('tools/list').attributes['mcp.method.name']).toBe('tools/list');
    expect(serverSpan('ping').kind).toBe(SpanKind.SERVER);
    expect(clientSpan('tools/list').kind).toBe(SpanKind.CLIENT);
  });

  it('with addFailureObjects: false, records the failure but adds nothing to the result', async () => {
    t.instrumentation.setConfig({ addFailureObjects: false });
    const result = await pair.client.callTool({ name: 'boom', arguments: {} });
    expect(result._meta).toBeUndefined();
    expect(serverSpan('tools/call boom').attributes['error.type']).toBe('tool_error');
  });
});

describe('server side: trace context from params._meta', () => {
  it('parents on the _meta context and links the ambient (transport) span when it differs', async () => {
    const server = makeServer();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    // Deliver each message inside a transport span, as an HTTP server instrumentation would.
    const ambient = trace.getTracer('transport').startSpan('HTTP POST');
    const tapped = b.onmessage;
    b.onmessage = (message, extra) =>
      context.with(trace.setSpan(context.active(), ambient), () => tapped?.(message, extra));
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(a);
    t.reset();
    await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    ambient.end();
    await client.close();
    await server.close();
    const span = serverSpan('tools/call add');
    const cspan = clientSpan('tools/call add');
    expect(span.parentSpanContext?.spanId).toBe(cspan.spanContext().spanId);
    expect(span.links.map((l) => l.context.spanId)).toEqual([ambient.spanContext().spanId]);
  });

  it('keeps _meta keys the caller set, including its own trace context', async () => {
    const { client, close } = await connectPair(makeServer());
    t.reset();
    const remote = trace.getTracer('caller').startSpan('caller');
    const meta: Record<string, string> = { 'com.example/tenant': 'acme' };
    propagation.inject(trace.setSpan(context.active(), remote), meta);
    const frozen = Object.freeze({ ...meta });
    const params = Object.freeze({ name: 'add', arguments: { a: 1, b: 1 }, _meta: frozen });
    await client.callTool(params);
    remote.end();
    await close();
    expect(serverSpan('tools/call add').spanContext().traceId).toBe(remote.spanContext().traceId);
    expect(params._meta).toBe(frozen);
  });

  it('with trustIncomingContext: false, starts a new trace and links the incoming context', async () => {
    t.instrumentation.setConfig({ trustIncomingContext: false });
    const { client, close } = await connectPair(makeServer());
    t.reset();
    const result = await client.callTool({ name: 'boom', arguments: {} });
    await close();
    t.instrumentation.setConfig({});
    const server = serverSpan('tools/call boom');
    const cspan = clientSpan('tools/call boom');
    expect(server.spanContext().traceId).not.toBe(cspan.spanContext().traceId);
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.links.map((l) => l.context.spanId)).toContain(cspan.spanContext().spanId);
    expect(failureOf(result)?.correlationId).toBe(server.spanContext().traceId);
  });
});

describe('server side: the low-level Server API', () => {
  function lowLevel(): Server {
    const server = new Server({ name: 'low', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 't', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      if (req.params.name === 'login')
        throw new ToolFailureError({ class: 'governance', code: 'auth_required' });
      if (req.params.name === 'internal') throw new McpError(-32603, 'upstream down');
      if (req.params.name === 'bad-params') throw new McpError(-32602, 'no such tool');
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    return server;
  }

  it('traces calls and turns a thrown ToolFailureError into a classified result', async () => {
    const { client, close } = await connectPair(lowLevel());
    t.reset();
    const ok = await client.callTool({ name: 'fine', arguments: {} });
    expect(ok.content).toEqual([{ type: 'text', text: 'ok' }]);
    const login = await client.callTool({ name: 'login', arguments: {} });
    await close();
    const span = serverSpan('tools/call login');
    expect(failureOf(login)).toEqual({
      class: 'governance',
      code: 'auth_required',
      correlationId: span.spanContext().traceId,
    });
    expect(span.attributes['mcp.tool.failure.class']).toBe('governance');
  });

  it('records JSON-RPC errors with the code, and only server codes as errors', async () => {
    const { client, close } = await connectPair(lowLevel());
    t.reset();
    await expect(client.callTool({ name: 'internal', arguments: {} })).rejects.toThrow(
      'upstream down',
    );
    await expect(client.callTool({ name: 'bad-params', arguments: {} })).rejects.toThrow();
    await expect(
      client.request({ method: 'prompts/list', params: {} }, z.object({}).loose()),
    ).rejects.toThrow();
    await close();
    const internal = serverSpan('tools/call internal');
    expect(internal.attributes).toMatchObject({
      'rpc.response.status_code': '-32603',
      'error.type': '-32603',
    });
    expect(internal.status.code).toBe(SpanStatusCode.ERROR);
    expect(internal.status.message).toContain('upstream down');
    const logs = await t.logRecords();
    const log = logs.find((l) => l.spanContext?.spanId === internal.spanContext().spanId);
    expect(log?.attributes['exception.message']).toContain('upstream down');
    const badParams = serverSpan('tools/call bad-params');
    expect(badParams.attributes['rpc.response.status_code']).toBe('-32602');
    expect(badParams.attributes).not.toHaveProperty('error.type');
    expect(badParams.status.code).toBe(SpanStatusCode.UNSET);
    // No handler at all: the SDK answers -32601 before any handler; the span is still there.
    const notFound = serverSpan('prompts/list');
    expect(notFound.attributes['rpc.response.status_code']).toBe('-32601');
    expect(clientSpan('tools/call internal').attributes).toMatchObject({
      'error.type': '-32603',
      'rpc.response.status_code': '-32603',
    });
  });
});

describe('server side: cancellation and transport close end open spans', () => {
  it('ends the span of a cancelled request and of requests open when the transport closes', async () => {
    const server = new McpServer({ name: 'slow', version: '1' });
    let release: () => void = () => {};
    let started = 0;
    server.registerTool('slow', {}, async () => {
      started++;
      await new Promise<void>((resolve) => (release = resolve));
      return { content: [] };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(a);
    t.reset();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await waitFor(() => started === 1);
    expect(started).toBe(1);
    controller.abort('user gave up');
    await expect(pending).rejects.toThrow();
    await waitFor(() => t.finished().filter((s) => s.name === 'tools/call slow').length === 2);
    expect(serverSpan('tools/call slow').attributes['error.type']).toBe('cancelled');
    expect(clientSpan('tools/call slow').attributes['error.type']).toBe('cancelled');
    release();
    t.reset();
    void client.callTool({ name: 'slow', arguments: {} }).catch(() => undefined);
    await waitFor(() => started === 2);
    expect(started).toBe(2);
    await server.close();
    expect(serverSpan('tools/call slow').attributes['error.type']).toBe('transport_closed');
    release();
    await client.close();
  });
});
