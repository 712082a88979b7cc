/**
 * A retrying caller marks every attempt after the first in `params._meta["dev.omcp/attempt"]`,
 * without the client instrumentation installed, and never in the caller's own objects.
 */
import { describe, expect, it } from 'vitest';
import { ATTEMPT_META_KEY, withToolRetry } from '../../src/retry/index.js';
import { attemptOfMeta, withAttemptMeta } from '../../src/shared/attempt-meta.js';
import { flakyTwice } from '../helpers/flaky-tool.js';
import { McpServer, connectPair } from '../helpers/mcp-v1.js';

describe('the attempt _meta key', () => {
  it("is this package's own, outside the reserved MCP prefixes", () => {
    expect(ATTEMPT_META_KEY).toBe('dev.omcp/attempt');
    const [prefix] = ATTEMPT_META_KEY.split('/');
    // MCP reserves prefixes whose second label is modelcontextprotocol or mcp.
    expect(prefix!.split('.')[1]).not.toMatch(/^(modelcontextprotocol|mcp)$/);
    expect(prefix).toMatch(/^[a-z][a-z0-9-]*[a-z0-9](\.[a-z][a-z0-9-]*[a-z0-9])*$/);
  });

  it('withAttemptMeta copies params and _meta for attempts >= 2, and leaves attempt 1 alone', () => {
    const params = Object.freeze({
      name: 't',
      arguments: { a: 1 },
      _meta: Object.freeze({ 'com.example/x': 'y', progressToken: 7 }),
    });
    expect(withAttemptMeta(params, 1)).toBe(params);
    expect(withAttemptMeta(params, 2)).toEqual({
      name: 't',
      arguments: { a: 1 },
      _meta: { 'com.example/x': 'y', progressToken: 7, [ATTEMPT_META_KEY]: 2 },
    });
    expect(withAttemptMeta({ name: 't' }, 3)).toEqual({
      name: 't',
      _meta: { [ATTEMPT_META_KEY]: 3 },
    });
    // A _meta that is not an object is not ours to fix.
    const odd = { name: 't', _meta: 'x' };
    expect(withAttemptMeta(odd, 2)).toBe(odd);
  });

  it('attemptOfMeta reads integers from 2 up and ignores anything malformed', () => {
    const of = (v: unknown) => attemptOfMeta({ name: 't', _meta: { [ATTEMPT_META_KEY]: v } });
    expect(of(2)).toBe(2);
    expect(of(17)).toBe(17);
    for (const bad of [1, 0, -3, 1.5, '2', null, {}, [], NaN, Infinity, 2 ** 40, true])
      expect(of(bad), String(bad)).toBeUndefined();
    expect(attemptOfMeta(undefined)).toBeUndefined();
    expect(attemptOfMeta({ _meta: 'x' })).toBeUndefined();
    const hostile = {
      _meta: Object.defineProperty({}, ATTEMPT_META_KEY, {
        get() {
          throw new Error('no');
        },
      }),
    };
    expect(attemptOfMeta(hostile)).toBeUndefined();
  });

  it('withToolRetry without the instrumentation sends attempts 2 and 3 marked, attempt 1 as written', async () => {
    const seen: unknown[] = [];
    const flaky = flakyTwice();
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('flaky', { annotations: { idempotentHint: true } }, async (extra) => {
      seen.push(extra._meta?.[ATTEMPT_META_KEY]);
      return flaky.answer();
    });
    const pair = await connectPair(server);
    const client = withToolRetry(pair.client, {
      retryBudget: false,
      backoff: { initialDelayMs: 1, maxDelayMs: 1 },
    });
    const params = { name: 'flaky', _meta: { 'com.example/x': 'y' } };
    const report = await client.callToolWithRetry(params);
    expect(report).toMatchObject({ outcome: 'success', attempts: 3 });
    expect(seen).toEqual([undefined, 2, 3]);
    expect(params).toEqual({ name: 'flaky', _meta: { 'com.example/x': 'y' } });
    await pair.close();
  });
});
