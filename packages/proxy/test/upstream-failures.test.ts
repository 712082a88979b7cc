import { SpanKind } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY, readToolFailure } from '../../tool-failure/src/index.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';
import { scriptedUpstream, throughProxy, type Answer } from './harness.js';

const t = setupTelemetry();

/** The trace ID of the proxy's SERVER span for `tools/call {tool}` (parented on the caller). */
function proxyTraceId(tool: string): string {
  const server = t
    .finished()
    .find((s) => s.name === `tools/call ${tool}` && s.kind === SpanKind.SERVER);
  expect(server).toBeDefined();
  return server!.spanContext().traceId;
}

describe('upstream trouble becomes a clear failure, never a hang', () => {
  let close: (() => Promise<void>) | undefined;
  beforeEach(() => t.reset());
  afterEach(async () => {
    vi.useRealTimers();
    await close?.();
    close = undefined;
  });

  it('upstream down: reliability / upstream_unavailable, retryable, correlationId = the proxy span trace ID', async () => {
    const p = await throughProxy({
      upstream: () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
          code: 'ECONNREFUSED',
        });
      },
    });
    close = p.close;
    const r = await p.client.callTool({ name: 'search', arguments: {} });
    const reading = readToolFailure(r);
    expect(reading.status).toBe('valid');
    expect(r.isError).toBe(true);
    expect(r._meta?.[KEY]).toMatchObject({
      class: 'reliability',
      code: 'upstream_unavailable',
      retryable: true,
      correlationId: proxyTraceId('search'),
    });
    expect(JSON.stringify(r.content)).toContain('ECONNREFUSED');
    await expect(p.client.listTools()).rejects.toThrow(/upstream unavailable/);
  });

  it('crash mid-call: upstream_unavailable, retryable only for an idempotent tool; the next call reconnects', async () => {
    let crash = true;
    const upstream = scriptedUpstream((method, params) => {
      if (method === 'tools/list')
        return {
          result: {
            tools: [
              {
                name: 'get',
                inputSchema: { type: 'object' },
                annotations: { idempotentHint: true },
              },
              { name: 'pay', inputSchema: { type: 'object' } },
            ],
          },
        };
      const name = (params as { name: string }).name;
      if (crash) return 'close';
      return { result: { content: [{ type: 'text', text: name }] } };
    });
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    await p.client.listTools();
    const pay = await p.client.callTool({ name: 'pay', arguments: {} });
    expect(pay._meta?.[KEY]).toMatchObject({
      class: 'reliability',
      code: 'upstream_unavailable',
      retryable: false,
    });
    const get = await p.client.callTool({ name: 'get', arguments: {} });
    expect(get._meta?.[KEY]).toMatchObject({ code: 'upstream_unavailable', retryable: true });
    crash = false;
    const ok = await p.client.callTool({ name: 'get', arguments: {} });
    expect(ok.isError).toBeUndefined();
    // The first connection, then one more after each crash.
    expect(upstream.connections).toBe(3);
  });

  it('garbage answer (result is not an object): reliability / malformed_response, not retryable', async () => {
    const upstream = scriptedUpstream(() => ({ result: 42 }));
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    const r = await p.client.callTool({ name: 'x', arguments: {} });
    expect(r._meta?.[KEY]).toMatchObject({
      class: 'reliability',
      code: 'malformed_response',
      retryable: false,
    });
  });

  it('no answer: reliability / timeout after the configured bound (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const upstream = scriptedUpstream((method) =>
      method === 'tools/call' ? 'hang' : { result: {} },
    );
    const p = await throughProxy({ upstream: upstream.factory, timeoutMs: 5_000 });
    close = p.close;
    let settled = false;
    const pending = p.client.callTool({ name: 'x', arguments: {} }).finally(() => {
      settled = true;
    });
    // Still waiting a millisecond before the bound, answered just after it.
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    const r = await pending;
    expect(r._meta?.[KEY]).toMatchObject({
      class: 'reliability',
      code: 'timeout',
      retryable: false,
    });
  });

  it('upstream that never finishes initialize: unavailable within connectTimeoutMs (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const silent = scriptedUpstream(() => 'hang');
    const factory = () => {
      const transport = silent.factory();
      return transport;
    };
    const proxyPromise = throughProxy({
      upstream: () => {
        const tr = factory();
        // Swallow initialize: an upstream that accepted the connection but never answers.
        const send = tr.send.bind(tr);
        tr.send = async (m, o) =>
          'method' in m && m.method === 'initialize' ? undefined : send(m, o);
        return tr;
      },
      connectTimeoutMs: 1_000,
    });
    await vi.advanceTimersByTimeAsync(1_001);
    const p = await proxyPromise;
    close = p.close;
    const pending = p.client.callTool({ name: 'x', arguments: {} });
    await vi.advanceTimersByTimeAsync(1_001);
    const r = await pending;
    expect(r._meta?.[KEY]).toMatchObject({ code: 'upstream_unavailable', retryable: true });
    expect(JSON.stringify(r.content)).toMatch(/within 1000 ms/);
  });

  it('a JSON-RPC error from the upstream is relayed as that error, not turned into a failure object', async () => {
    const upstream = scriptedUpstream((): Answer => ({
      error: { code: -32602, message: 'Tool x not found' },
    }));
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    await expect(p.client.callTool({ name: 'x', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
  });
});
