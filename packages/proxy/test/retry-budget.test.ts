/**
 * The proxy's retries share one engine for its upstream: the retry budget (gRPC-style token
 * bucket: a failure costs 1, retries only above half of 10 tokens) caps amplification across
 * every downstream call, and the annotations the proxy saw in `tools/list` feed the policy.
 */
import { describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { scriptedUpstream, throughProxy } from './harness.js';

const failing = {
  content: [{ type: 'text', text: 'down' }],
  isError: true,
  _meta: {
    [KEY]: {
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      correlationId: '0af7651916cd43dd8448eb211c80319c',
    },
  },
};

function upstream(): ReturnType<typeof scriptedUpstream> {
  return scriptedUpstream((method) =>
    method === 'tools/list'
      ? {
          result: {
            tools: [
              {
                name: 'flaky',
                inputSchema: { type: 'object' },
                annotations: { idempotentHint: true },
              },
            ],
          },
        }
      : { result: failing },
  );
}

/** Upstream `tools/call` requests the budget allows for `n` always-failing calls of 3 attempts. */
function allowed(n: number): number {
  let tokens = 10;
  let calls = 0;
  for (let i = 0; i < n; i++) {
    for (let attempt = 1; attempt <= 3; attempt++) {
      calls += 1;
      tokens -= 1;
      if (!(tokens > 5)) break;
    }
  }
  return calls;
}

describe('proxy retries against one shared budget per upstream', () => {
  it('10 downstream calls of an always-failing idempotent tool make at most the budget allows', async () => {
    const up = upstream();
    const { client, close } = await throughProxy({
      upstream: up.factory,
      retry: { backoff: { initialDelayMs: 1, maxDelayMs: 1 } },
    });
    try {
      await client.listTools();
      for (let i = 0; i < 10; i++) {
        const r = await client.callTool({ name: 'flaky', arguments: {} });
        expect(r.isError).toBe(true);
      }
      const calls = up.requests.filter((r) => r.method === 'tools/call').length;
      expect(allowed(10)).toBe(13);
      expect(calls).toBe(allowed(10));
    } finally {
      await close();
    }
  });

  it('the tools/list the proxy relayed tells the policy the tool is idempotent (no walk of its own)', async () => {
    const up = upstream();
    const { client, close } = await throughProxy({
      upstream: up.factory,
      retry: { backoff: { initialDelayMs: 1, maxDelayMs: 1 } },
    });
    try {
      await client.listTools();
      await client.callTool({ name: 'flaky', arguments: {} });
      expect(up.requests.map((r) => r.method)).toEqual([
        'tools/list',
        'tools/call',
        'tools/call',
        'tools/call',
      ]);
    } finally {
      await close();
    }
  });
});
