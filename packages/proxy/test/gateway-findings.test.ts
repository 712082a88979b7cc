// The smaller findings of issue 40's black-box run on the gateway, each an attack that failed
// before its fix, over a real stdio upstream child (packages/proxy/test/fixtures/tenant-server.mjs):
// a client's own cancellation in the sessionful mode left its POST stream open and its slot
// taken; one unreadable upstream line failed every tenant's call in flight with
// malformed_response; with untrusted incoming context, a caller's baggage still reached the
// upstream. The CLI's reading of OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT:
// tenants-cli.test.ts. Listed in docs/security.md's attack table.
import { afterEach, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../src/index.js';
import { serveStreamableHttp, type ProxyHttpEndpoint } from '../src/http.js';
import type { ProxyHttpOptions, ToolFailureProxyOptions } from '../src/types.js';
import type { ToolFailureProxy } from '../src/types.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { TOKEN, stdioUpstream, tenant } from './tenant-harness.js';

const headers = (sid?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${TOKEN}`,
  ...(sid === undefined ? {} : { 'mcp-session-id': sid }),
});

describe('gateway findings', () => {
  let proxy: ToolFailureProxy | undefined;
  let endpoint: ProxyHttpEndpoint | undefined;
  const lines: string[] = [];

  async function start(
    http: ProxyHttpOptions = {},
    options: Partial<ToolFailureProxyOptions> = {},
  ): Promise<string> {
    lines.length = 0;
    proxy = createToolFailureProxy({
      upstream: stdioUpstream(),
      timeoutMs: 10_000,
      log: (l) => lines.push(l),
      ...options,
    });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { ...http, authToken: TOKEN });
    return endpoint.url;
  }

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  async function session(url: string): Promise<string> {
    const init = await fetch(url, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'canceller', version: '1' },
        },
      }),
    });
    await init.text();
    const sid = init.headers.get('mcp-session-id') ?? '';
    await (
      await fetch(url, {
        method: 'POST',
        headers: headers(sid),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    return sid;
  }

  const call = (id: number, name: string) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

  it('sessionful: a client’s notifications/cancelled for its own request ends that request’s POST stream and frees its in-flight slot', async () => {
    const url = await start({ limits: { maxInFlightPerSession: 2 } });
    const sid = await session(url);
    // Warm the upstream child so the slow call's 1.5 s start when it is sent.
    await (
      await fetch(url, { method: 'POST', headers: headers(sid), body: call(1, 'meta') })
    ).text();
    const slow = await fetch(url, { method: 'POST', headers: headers(sid), body: call(2, 'slow') });
    expect(slow.status).toBe(200);
    const body = slow.text().then((text) => ({ text }));
    const cancel = await fetch(url, {
      method: 'POST',
      headers: headers(sid),
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 2, reason: 'the user stopped it' },
      }),
    });
    expect(cancel.status).toBe(202);
    // The stream ends with no answer for the cancelled request (MCP sends none), well before
    // the upstream's 1.5 s; before the fix it was still open 3 s later.
    const ended = await Promise.race([
      body,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 3_000).unref()),
    ]);
    expect(ended, 'the cancelled request’s stream was still open after 3 s').toBeDefined();
    expect(ended?.text).not.toContain('"id":2');
    // Its slot is free again: a batch of two calls, the session's whole limit, is admitted (not
    // 429) and answered while the upstream's slow call would still be running.
    const next = await fetch(url, {
      method: 'POST',
      headers: headers(sid),
      body: `[${call(3, 'meta')},${call(4, 'meta')}]`,
    });
    expect(next.status).toBe(200);
    const answered = await next.text();
    expect(answered).toContain('"id":3');
    expect(answered).toContain('"id":4');
  });

  it('sessionful: in a batch, a cancelled request’s POST stream ends once the others are answered, with their answers', async () => {
    const url = await start();
    const sid = await session(url);
    await (
      await fetch(url, { method: 'POST', headers: headers(sid), body: call(1, 'meta') })
    ).text();
    const batch = await fetch(url, {
      method: 'POST',
      headers: headers(sid),
      body: `[${call(5, 'slow')},${call(6, 'slow')}]`,
    });
    const body = batch.text().then((text) => ({ text }));
    const cancel = await fetch(url, {
      method: 'POST',
      headers: headers(sid),
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 5 },
      }),
    });
    expect(cancel.status).toBe(202);
    const ended = await Promise.race([
      body,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 5_000).unref()),
    ]);
    expect(ended, 'the batch’s stream was still open after 5 s').toBeDefined();
    expect(ended?.text).toContain('"id":6');
    expect(ended?.text).toContain('slow done');
    expect(ended?.text).not.toContain('"id":5');
  });

  it('one unreadable upstream line while two tenants’ calls are in flight fails neither: each gets its own answer', async () => {
    const url = await start();
    const a = await tenant(url, 'tenant-a');
    const b = await tenant(url, 'tenant-b');
    try {
      await a.client.listTools();
      const slow = a.client.callTool({ name: 'slow', arguments: {} });
      await new Promise((r) => setTimeout(r, 200));
      const garbage = await b.client.callTool({ name: 'garbage', arguments: {} });
      const slowResult = await slow;
      expect(garbage._meta?.[KEY]).toBeUndefined();
      expect(garbage.content).toEqual([{ type: 'text', text: 'after garbage' }]);
      expect(slowResult._meta?.[KEY]).toBeUndefined();
      expect(slowResult.content).toEqual([{ type: 'text', text: 'slow done' }]);
      expect(lines).toEqual([
        expect.stringMatching(/^the upstream sent a message that cannot be read while 2 requests/),
      ]);
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });

  it('with trustIncomingContext: false the caller’s traceparent, tracestate and baggage never reach the upstream; trusted, they do', async () => {
    const meta = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'victim=1',
      baggage: 'tenant=victim,role=admin',
      'vendor.example/kept': 'yes',
    };
    const seen = async (url: string): Promise<Record<string, unknown>> => {
      const t = await tenant(url, 'caller');
      try {
        const r = await t.client.callTool({ name: 'meta', arguments: {}, _meta: meta });
        return JSON.parse((r.content as Array<{ text: string }>)[0]?.text ?? '{}') as Record<
          string,
          unknown
        >;
      } finally {
        await t.client.close();
      }
    };
    const untrusted = await seen(await start({}, { trustIncomingContext: false }));
    expect(untrusted).toStrictEqual({ 'vendor.example/kept': 'yes' });
    await endpoint?.close();
    await proxy?.close();
    // Trusted (the default) and without telemetry in the proxy: forwarded as the caller sent it.
    expect(await seen(await start())).toStrictEqual(meta);
  });
});
