import { SpanKind } from '@opentelemetry/api';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { Client } from '../../../test/helpers/mcp-v1.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';
import { scriptedUpstream, sdkUpstream, throughProxy } from './harness.js';

const t = setupTelemetry();

describe('relay through createToolFailureProxy (in memory)', () => {
  let close: (() => Promise<void>) | undefined;
  beforeEach(() => t.reset());
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('mirrors the upstream: serverInfo, capabilities, instructions, tools/list', async () => {
    const upstream = sdkUpstream((server) => {
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          { name: 'echo', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } },
        ],
        _meta: { page: 1 },
      }));
    });
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    expect(p.client.getServerVersion()).toEqual({ name: 'sdk-upstream', version: '1.2.3' });
    expect(p.client.getServerCapabilities()).toMatchObject({ tools: {}, logging: {} });
    expect(p.client.getInstructions()).toBe('be nice');
    const list = await p.client.listTools();
    expect(list.tools[0]?.name).toBe('echo');
    expect(list._meta).toEqual({ page: 1 });
    await p.client.setLoggingLevel('debug');
  });

  it("passes the upstream's declaration of the extension through, settings and all", async () => {
    const upstream = sdkUpstream((server) => {
      server.registerCapabilities({ extensions: { [KEY]: { from: 'upstream' } } });
    });
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    expect(p.client.getServerCapabilities()?.extensions).toEqual({ [KEY]: { from: 'upstream' } });
  });

  it('adds no declaration of its own: a relayed server/discover result is the upstream one', async () => {
    const discovered = {
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted-upstream', version: '9' } },
    };
    const upstream = scriptedUpstream((method) =>
      method === 'server/discover'
        ? { result: discovered }
        : { error: { code: -32601, message: 'Method not found' } },
    );
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    expect(p.client.getServerCapabilities()?.extensions).toBeUndefined();
    expect(await p.client.request({ method: 'server/discover', params: {} }, ResultSchema)).toEqual(
      discovered,
    );
    // This process is instrumented: the proxy's own server span saw the result go out.
    const served = t
      .finished()
      .filter((s) => s.name === 'server/discover' && s.kind === SpanKind.SERVER);
    expect(served.length).toBeGreaterThan(0);
  });

  it('relays other methods and JSON-RPC errors as they came', async () => {
    const upstream = scriptedUpstream((method) =>
      method === 'prompts/list'
        ? { result: { prompts: [], _meta: { x: 1 } } }
        : { error: { code: -32602, message: 'Tool nope not found', data: { hint: 1 } } },
    );
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    expect(await p.client.request({ method: 'prompts/list', params: {} }, ResultSchema)).toEqual({
      prompts: [],
      _meta: { x: 1 },
    });
    await expect(
      p.client.request({ method: 'tools/call', params: { name: 'nope' } }, ResultSchema),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Tool nope not found',
      data: { hint: 1 },
    });
  });

  it('continues the trace: client → proxy SERVER → proxy CLIENT → upstream SERVER; baggage and other _meta keys go through', async () => {
    let received: Record<string, unknown> | undefined;
    const upstream = sdkUpstream((server) => {
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        received = request.params._meta as Record<string, unknown> | undefined;
        return { content: [{ type: 'text', text: 'ok' }] };
      });
    });
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    await p.client.callTool({
      name: 'echo',
      arguments: {},
      _meta: { baggage: 'tenant=a', 'com.example/key': 'v' },
    });
    // What the upstream server was given: the caller's own key and its baggage entry.
    expect(received?.['com.example/key']).toBe('v');
    expect(String(received?.baggage)).toContain('tenant=a');
    const spans = t.finished().filter((s) => s.name === 'tools/call echo');
    const clients = spans.filter((s) => s.kind === SpanKind.CLIENT);
    const servers = spans.filter((s) => s.kind === SpanKind.SERVER);
    expect(clients).toHaveLength(2);
    expect(servers).toHaveLength(2);
    const caller = clients.find((c) =>
      servers.every((s) => s.spanContext().spanId !== c.parentSpanContext?.spanId),
    )!;
    const proxyServer = servers.find(
      (s) => s.parentSpanContext?.spanId === caller.spanContext().spanId,
    )!;
    const proxyClient = clients.find(
      (c) => c.parentSpanContext?.spanId === proxyServer.spanContext().spanId,
    )!;
    const upstreamServer = servers.find(
      (s) => s.parentSpanContext?.spanId === proxyClient.spanContext().spanId,
    )!;
    expect(upstreamServer).toBeDefined();
    const traceId = caller.spanContext().traceId;
    for (const s of [proxyServer, proxyClient, upstreamServer])
      expect(s.spanContext().traceId).toBe(traceId);

    const forwarded = upstream.servers.length; // one upstream connection
    expect(forwarded).toBe(1);
  });

  it('forwards params._meta upstream minus the caller traceparent, which the proxy replaces with its own', async () => {
    const upstream = scriptedUpstream(() => ({ result: { content: [] } }));
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    await p.client.callTool({
      name: 'echo',
      arguments: { a: 1 },
      _meta: { baggage: 'tenant=a', 'com.example/key': 'v' },
    });
    const sent = upstream.requests.find((r) => r.method === 'tools/call')!.params as {
      _meta: Record<string, unknown>;
      arguments: unknown;
    };
    const proxyClient = t
      .finished()
      .filter((s) => s.name === 'tools/call echo' && s.kind === SpanKind.CLIENT)
      .find((c) =>
        t
          .finished()
          .some(
            (s) =>
              s.kind === SpanKind.SERVER && s.spanContext().spanId === c.parentSpanContext?.spanId,
          ),
      )!;
    expect(sent.arguments).toEqual({ a: 1 });
    expect(sent._meta).toMatchObject({ baggage: 'tenant=a', 'com.example/key': 'v' });
    expect(sent._meta.traceparent).toBe(
      `00-${proxyClient.spanContext().traceId}-${proxyClient.spanContext().spanId}-01`,
    );
  });

  it('relays progress notifications with the caller’s own token', async () => {
    const upstream = sdkUpstream((server) => {
      server.setRequestHandler(CallToolRequestSchema, async (_req, extra) => {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: extra._meta?.progressToken ?? 0, progress: 1, total: 2 },
        });
        return { content: [] };
      });
    });
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    const seen: unknown[] = [];
    await p.client.callTool({ name: 'slow', arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(seen).toEqual([{ progress: 1, total: 2 }]);
  });

  it('keeps a failure object the upstream sent, byte for byte', async () => {
    const failure = {
      class: 'governance',
      code: 'policy_blocked',
      correlationId: 'abc',
      extra: [1],
    };
    const upstream = scriptedUpstream(() => ({
      result: { content: [{ type: 'text', text: 'no' }], isError: true, _meta: { [KEY]: failure } },
    }));
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    const r = await p.client.callTool({ name: 'x', arguments: {} });
    expect(r._meta).toStrictEqual({ [KEY]: failure });
  });

  it('adds no failure object to a bare upstream error, on the wire or in its own span', async () => {
    const upstream = scriptedUpstream(() => ({
      result: { content: [{ type: 'text', text: 'upstream says no' }], isError: true },
    }));
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    const r = await p.client.callTool({ name: 'bare', arguments: {} });
    expect(r).toStrictEqual({
      content: [{ type: 'text', text: 'upstream says no' }],
      isError: true,
    });
    const proxyServer = t
      .finished()
      .filter((s) => s.name === 'tools/call bare' && s.kind === SpanKind.SERVER)
      .find((s) => s.attributes['mcp.tool.failure.source'] === 'upstream');
    expect(proxyServer).toBeDefined();
    expect(proxyServer?.attributes).not.toHaveProperty('mcp.tool.failure.class');
    expect(proxyServer?.attributes['error.type']).toBe('tool_error');
  });

  it('shares one upstream connection across downstream connections, and takes none once closed', async () => {
    const upstream = scriptedUpstream((method) =>
      method === 'tools/call'
        ? { result: { content: [{ type: 'text', text: 'ok' }] } }
        : { result: {} },
    );
    const p = await throughProxy({ upstream: upstream.factory });
    const [secondSide, proxySide] = InMemoryTransport.createLinkedPair();
    await p.proxy.connect(proxySide);
    const second = new Client({ name: 'second', version: '1' });
    await second.connect(secondSide);
    await p.client.callTool({ name: 'a' });
    await second.callTool({ name: 'b' });
    expect(upstream.connections).toBe(1);
    expect(upstream.requests.map((r) => r.method)).toEqual(['tools/call', 'tools/call']);
    const secondClosed = new Promise<void>((resolve) => (second.onclose = resolve));
    await p.close();
    // Closing the proxy closes every downstream connection, not only the first.
    await secondClosed;
    const [, late] = InMemoryTransport.createLinkedPair();
    await expect(p.proxy.connect(late)).rejects.toThrow('createToolFailureProxy: proxy is closed');
    expect(upstream.connections).toBe(1);
  });
});
