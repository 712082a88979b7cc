import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { getToolAnnotations, refreshToolAnnotations } from '../../src/retry/index.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { Server, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();

/** A low-level server whose results are whatever the test wants the client to receive. */
function scripted(results: Record<string, unknown>, pages = 1): Server {
  const server = new Server({ name: 'scripted', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const r = results[req.params.name];
    if (r === 'hang') return new Promise(() => undefined);
    return {
      ...(r as object),
      _meta: { ...((r as { _meta?: object })._meta ?? {}), seen: req.params._meta ?? null },
    };
  });
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const page = Number(req.params?.cursor ?? 0);
    return {
      tools: [
        {
          name: `idem-${page}`,
          inputSchema: { type: 'object' as const },
          annotations: { idempotentHint: true },
        },
        { name: `plain-${page}`, inputSchema: { type: 'object' as const } },
      ],
      ...(page + 1 < pages ? { nextCursor: String(page + 1) } : {}),
    };
  });
  return server;
}

const clientSpans = () =>
  t.finished().filter((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('tools/call'));

describe('client side', () => {
  beforeEach(() => t.instrumentation.setConfig({}));

  it('manual instrumentation over the auto-patched prototype traces each call once', async () => {
    const { client, close } = await connectPair(scripted({ echo: { content: [] } }));
    t.instrumentation.instrumentClient(client);
    t.reset();
    const first = await client.callTool({ name: 'echo', arguments: {} });
    const second = await client.callTool({ name: 'echo', arguments: {} });
    await close();
    const spans = clientSpans();
    expect(spans).toHaveLength(2);
    for (const [i, r] of [first, second].entries()) {
      const seen = (r._meta as { seen: Record<string, string> }).seen;
      const sc = spans[i]!.spanContext();
      expect(seen.traceparent).toBe(`00-${sc.traceId}-${sc.spanId}-01`);
    }
  });

  it('injects trace context into a copy of params._meta and keeps the caller keys', async () => {
    const { client, close } = await connectPair(scripted({ echo: { content: [] } }));
    t.reset();
    const callerMeta = { 'com.example/tenant': 'acme' };
    const params = { name: 'echo', arguments: {}, _meta: callerMeta };
    const result = await client.callTool(params);
    await close();
    const seen = (result._meta as { seen: Record<string, string> }).seen;
    const span = clientSpans()[0]!;
    expect(seen['com.example/tenant']).toBe('acme');
    expect(seen.traceparent).toBe(
      `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
    );
    expect(callerMeta).toEqual({ 'com.example/tenant': 'acme' });
    expect(params).toEqual({
      name: 'echo',
      arguments: {},
      _meta: { 'com.example/tenant': 'acme' },
    });
  });

  it('parents the client span on the caller active span (no detached session trace)', async () => {
    const { client, close } = await connectPair(scripted({ echo: { content: [] } }));
    t.reset();
    const outer = trace.getTracer('app').startSpan('agent step');
    await context.with(trace.setSpan(context.active(), outer), () =>
      client.callTool({ name: 'echo', arguments: {} }),
    );
    outer.end();
    await close();
    const span = clientSpans()[0]!;
    expect(span.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(span.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });

  it('reads a received failure and records class, code, retry hints and correlationId', async () => {
    const failure = {
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: 1_900_000_000_000,
      correlationId: 'abc',
      agentGuidance: 'wait',
    };
    const { client, close } = await connectPair(
      scripted({
        f: { isError: true, content: [{ type: 'text', text: 'busy' }], _meta: { [KEY]: failure } },
      }),
    );
    t.reset();
    const result = await client.callTool({ name: 'f', arguments: {} });
    await close();
    expect((result._meta as Record<string, unknown>)[KEY]).toEqual(failure);
    const span = clientSpans()[0]!;
    expect(span.attributes).toMatchObject({
      'error.type': 'tool_error',
      'mcp.tool.failure.class': 'reliability',
      'mcp.tool.failure.code': 'retryable_transient_error',
      'mcp.tool.failure.retryable': true,
      'mcp.tool.failure.retry_not_before': 1_900_000_000_000,
      'mcp.tool.failure.correlation_id': 'abc',
      'mcp.tool.failure.agent_guidance': 'wait',
    });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).not.toHaveProperty('rpc.response.status_code');
  });

  it('records a malformed failure object by its rule ids without failing the call', async () => {
    const bad = { class: 'fatal', code: 7, retryable: 'yes' };
    const { client, close } = await connectPair(
      scripted({ m: { isError: true, content: [], _meta: { [KEY]: bad } } }),
    );
    t.reset();
    const result = await client.callTool({ name: 'm', arguments: {} });
    await close();
    expect((result._meta as Record<string, unknown>)[KEY]).toEqual(bad);
    const span = clientSpans()[0]!;
    expect(String(span.attributes['mcp.tool.failure.problems']).split(',').sort()).toEqual([
      'TF-CLASS-ENUM',
      'TF-CODE-REQUIRED',
      'TF-CORRELATION-REQUIRED',
      'TF-RETRYABLE-TYPE',
    ]);
    expect(span.attributes['error.type']).toBe('tool_error');
    expect(span.attributes).not.toHaveProperty('mcp.tool.failure.class');
  });

  it('records timeouts as error.type=timeout, without a response status code', async () => {
    const { client, close } = await connectPair(scripted({ hang: 'hang' }));
    t.reset();
    await expect(
      client.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 30 }),
    ).rejects.toThrow(/timed out/);
    await close();
    const span = clientSpans()[0]!;
    expect(span.attributes['error.type']).toBe('timeout');
    expect(span.attributes).not.toHaveProperty('rpc.response.status_code');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('caches tool annotations from every tools/list page, per client', async () => {
    const { client, close } = await connectPair(scripted({}, 3));
    const other = await connectPair(scripted({}, 1));
    expect(getToolAnnotations(client, 'idem-2')).toBeUndefined();
    expect(await refreshToolAnnotations(client)).toBe(6);
    expect(getToolAnnotations(client, 'idem-0')).toEqual({ idempotentHint: true });
    expect(getToolAnnotations(client, 'idem-2')).toEqual({ idempotentHint: true });
    expect(getToolAnnotations(client, 'plain-1')).toBeUndefined();
    expect(getToolAnnotations(other.client, 'idem-0')).toBeUndefined();
    await other.client.listTools();
    expect(getToolAnnotations(other.client, 'idem-0')).toEqual({ idempotentHint: true });
    await close();
    await other.close();
  });

  it('does not inject when propagateContext is false', async () => {
    t.instrumentation.setConfig({ propagateContext: false });
    const { client, close } = await connectPair(scripted({ echo: { content: [] } }));
    const result = await client.callTool({ name: 'echo', arguments: {} });
    await close();
    expect((result._meta as { seen: unknown }).seen).toBeNull();
  });

  it('captures arguments and results only when enabled', async () => {
    const { client, close } = await connectPair(
      scripted({ echo: { content: [{ type: 'text', text: 'secret-result' }] } }),
    );
    t.reset();
    await client.callTool({ name: 'echo', arguments: { password: 'hunter2' } });
    expect(clientSpans()).toHaveLength(1);
    expect(JSON.stringify(t.finished().map((s) => s.attributes))).not.toContain('hunter2');
    expect(JSON.stringify(t.finished().map((s) => s.attributes))).not.toContain('secret-result');
    t.instrumentation.setConfig({ captureToolPayloads: true });
    t.reset();
    await client.callTool({ name: 'echo', arguments: { password: 'hunter2' } });
    await close();
    const span = clientSpans()[0]!;
    expect(span.attributes['gen_ai.tool.call.arguments']).toBe('{"password":"hunter2"}');
    expect(span.attributes['gen_ai.tool.call.result']).toContain('secret-result');
  });
});
