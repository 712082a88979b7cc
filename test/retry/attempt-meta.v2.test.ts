/** The attempt `_meta` key reaches an SDK 2.x server through an SDK 2.x client's `callTool`. */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ATTEMPT_META_KEY, withToolRetry } from '../../src/retry/index.js';
import { flakyTwice } from '../helpers/flaky-tool.js';

describe('attempt numbers with SDK 2.x', () => {
  it('attempts 2 and 3 carry _meta["dev.omcp/attempt"], attempt 1 does not', async () => {
    const seen: unknown[] = [];
    const flaky = flakyTwice();
    const server = new McpServer({ name: 's2', version: '2.0.0' });
    server.registerTool('flaky', { annotations: { idempotentHint: true } }, async (ctx) => {
      seen.push(ctx.mcpReq._meta?.[ATTEMPT_META_KEY]);
      return flaky.answer();
    });
    const client = new Client({ name: 'c2', version: '2.0.0' });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(st), client.connect(ct)]);
    const wrapped = withToolRetry(client, {
      retryBudget: false,
      backoff: { initialDelayMs: 1, maxDelayMs: 1 },
    });
    const report = await wrapped.callToolWithRetry({ name: 'flaky' });
    expect(report).toMatchObject({ outcome: 'success', attempts: 3 });
    expect(seen).toEqual([undefined, 2, 3]);
    await client.close();
    await server.close();
  });
});
