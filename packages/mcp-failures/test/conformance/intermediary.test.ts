import { SpanKind } from '@opentelemetry/api';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY, readToolFailure } from '../../../tool-failure/src/index.js';
import { setupTelemetry } from '../../../../test/helpers/telemetry.js';
import { scriptedUpstream, throughProxy } from '../../../proxy/test/harness.js';

// The instrumentation is active here (its default adds failure objects to bare error results),
// so these also show that the proxy's own instrumented server does not touch relayed results.
const t = setupTelemetry();

describe('Intermediaries: the reference proxy (createToolFailureProxy)', () => {
  let close: (() => Promise<void>) | undefined;
  beforeEach(() => t.reset());
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('[TF-PROXY-PRESERVE] the proxy relays the failure object unchanged, correlationId and unknown keys included', async () => {
    const failure = {
      class: 'reliability',
      code: 'vendor_quota',
      retryable: true,
      retryNotBefore: 1_900_000_000_000,
      correlationId: 'upstream-7f3a',
      agentGuidance: 'wait a minute',
      'x-vendor': { shard: 3 },
    };
    const meta = { [KEY]: failure, 'com.example/trace': 'abc' };
    const upstream = scriptedUpstream(() => ({
      result: { content: [{ type: 'text', text: 'quota' }], isError: true, _meta: meta },
    }));
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    const r = await p.client.callTool({ name: 'q', arguments: {} });
    expect(r._meta).toStrictEqual(meta);
    expect((r._meta?.[KEY] as { correlationId: string }).correlationId).toBe('upstream-7f3a');
  });

  it('[TF-PROXY-NO-REWRITE] the proxy adds or rewrites no failure object for an upstream failure', async () => {
    const invalid = { class: 'weird', correlationId: 7 };
    const answers = [
      { content: [{ type: 'text', text: 'bare error' }], isError: true },
      { content: [], isError: true, _meta: { [KEY]: invalid } },
      { content: [], isError: true, _meta: { [KEY]: 'not an object' } },
    ];
    let i = 0;
    const upstream = scriptedUpstream(() => ({ result: answers[i++] }));
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    for (const sent of answers) {
      const got = await p.client.request(
        { method: 'tools/call', params: { name: 'f', arguments: {} } },
        ResultSchema,
      );
      expect(got).toStrictEqual(sent);
    }
    expect(readToolFailure(answers[0]).status).toBe('absent');
  });

  it('[TF-PROXY-NO-RETRY] the proxy relays a retryable failure once; it retries only when configured to', async () => {
    const upstream = scriptedUpstream((method) =>
      method === 'tools/list'
        ? {
            result: {
              tools: [
                {
                  name: 'get',
                  inputSchema: { type: 'object' },
                  annotations: { idempotentHint: true },
                },
              ],
            },
          }
        : {
            result: {
              content: [],
              isError: true,
              _meta: {
                [KEY]: {
                  class: 'reliability',
                  code: 'retryable_transient_error',
                  retryable: true,
                  correlationId: 'c1',
                },
              },
            },
          },
    );
    const p = await throughProxy({ upstream: upstream.factory });
    close = p.close;
    await p.client.listTools();
    const r = await p.client.callTool({ name: 'get', arguments: {} });
    expect(r.isError).toBe(true);
    expect(upstream.requests.filter((q) => q.method === 'tools/call')).toHaveLength(1);

    let calls = 0;
    const flaky = scriptedUpstream((method) => {
      if (method === 'tools/list')
        return {
          result: {
            tools: [
              {
                name: 'get',
                inputSchema: { type: 'object' },
                annotations: { idempotentHint: true },
              },
            ],
          },
        };
      calls += 1;
      return calls < 3
        ? {
            result: {
              content: [],
              isError: true,
              _meta: {
                [KEY]: {
                  class: 'reliability',
                  code: 'retryable_transient_error',
                  retryable: true,
                  correlationId: `c${calls}`,
                },
              },
            },
          }
        : { result: { content: [{ type: 'text', text: 'ok' }] } };
    });
    const q = await throughProxy({
      upstream: flaky.factory,
      retry: { backoff: { initialDelayMs: 1, maxDelayMs: 1 }, retryBudget: false },
    });
    const ok = await q.client.callTool({ name: 'get', arguments: {} });
    await q.close();
    expect(ok.isError).toBeUndefined();
    expect(calls).toBe(3);
  });

  it('[TF-PROXY-OWN-FAILURE] when the upstream cannot answer, the proxy reports its own failure object with its own span trace ID', async () => {
    const p = await throughProxy({
      upstream: () => {
        throw new Error('spawn nonexistent ENOENT');
      },
    });
    close = p.close;
    const r = await p.client.callTool({ name: 'x', arguments: {} });
    const reading = readToolFailure(r);
    expect(reading.status).toBe('valid');
    const proxySpan = t
      .finished()
      .find((s) => s.name === 'tools/call x' && s.kind === SpanKind.SERVER);
    expect(r._meta?.[KEY]).toMatchObject({
      class: 'reliability',
      code: 'upstream_unavailable',
      correlationId: proxySpan?.spanContext().traceId,
    });
  });
});
