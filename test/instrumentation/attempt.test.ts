/**
 * The server span records the attempt a retrying caller marked (`mcp.tool.call.attempt`), so
 * the server's operator sees a retry as a retry — through `withToolRetry` and through the
 * proxy's upstream retries. Malformed values are ignored.
 */
import { SpanKind } from '@opentelemetry/api';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { ATTR_MCP_TOOL_CALL_ATTEMPT } from '../../src/semconv.js';
import { ATTEMPT_META_KEY, withToolRetry } from '../../src/retry/index.js';
import { flakyTwice } from '../helpers/flaky-tool.js';
import { McpServer, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { sdkUpstream, throughProxy } from '../../packages/proxy/test/harness.js';

const t = setupTelemetry();

/** A server whose idempotent tool `flaky` fails transiently twice, then succeeds. */
function flakyServer(server: McpServer): void {
  const flaky = flakyTwice();
  server.registerTool('flaky', { annotations: { idempotentHint: true } }, async () => {
    return flaky.answer();
  });
  server.registerTool('echo', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
}

const attemptsOn = (kind: SpanKind, name: string): unknown[] =>
  t
    .finished()
    .filter((s) => s.kind === kind && s.name === name)
    .map((s) => s.attributes[ATTR_MCP_TOOL_CALL_ATTEMPT]);

const retryPolicy = { retryBudget: false as const, backoff: { initialDelayMs: 1, maxDelayMs: 1 } };

describe('the attempt number on the server span', () => {
  beforeEach(() => t.reset());

  it('withToolRetry: the server spans of the three attempts read -, 2, 3', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    flakyServer(server);
    const pair = await connectPair(server);
    const client = withToolRetry(pair.client, retryPolicy);
    const report = await client.callToolWithRetry({ name: 'flaky' });
    expect(report).toMatchObject({ outcome: 'success', attempts: 3 });
    expect(attemptsOn(SpanKind.SERVER, 'tools/call flaky')).toEqual([undefined, 2, 3]);
    // The client spans carry the attempt from the retry context (1 included), as before.
    expect(attemptsOn(SpanKind.CLIENT, 'tools/call flaky')).toEqual([1, 2, 3]);
    await pair.close();
  });

  it("through the proxy's retry: the upstream's server spans read -, 2, 3", async () => {
    const flaky = flakyTwice();
    const up = sdkUpstream((server) => {
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [
          { name: 'flaky', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, () => {
        return flaky.answer();
      });
    });
    const { client, close } = await throughProxy({ upstream: up.factory, retry: retryPolicy });
    try {
      await client.listTools();
      t.reset();
      const r = await client.callTool({ name: 'flaky', arguments: {} });
      expect(r.isError).not.toBe(true);
      const server = t
        .finished()
        .filter((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call flaky');
      // One SERVER span in the proxy (the caller did not retry), three in the upstream.
      expect(server).toHaveLength(4);
      expect(server.map((s) => s.attributes[ATTR_MCP_TOOL_CALL_ATTEMPT]).sort()).toEqual([
        2,
        3,
        undefined,
        undefined,
      ]);
      expect(flaky.calls()).toBe(3);
    } finally {
      await close();
    }
  });

  it('ignores malformed values without failing the call', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    flakyServer(server);
    const pair = await connectPair(server);
    const values = [1, 0, -2, 1.5, '3', null, { n: 2 }, 2 ** 40, 7];
    for (const value of values) {
      const r = await pair.client.request(
        { method: 'tools/call', params: { name: 'echo', _meta: { [ATTEMPT_META_KEY]: value } } },
        CallToolResultSchema,
      );
      expect(r.isError).not.toBe(true);
    }
    expect(attemptsOn(SpanKind.SERVER, 'tools/call echo')).toEqual([
      ...values.slice(0, -1).map(() => undefined),
      7,
    ]);
    await pair.close();
  });
});
