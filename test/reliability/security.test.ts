import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { withToolRetry } from '../../src/retry/index.js';
import { TOOL_FAILURE_META_KEY, toolFailure } from '../../packages/tool-failure/src/index.js';
import { connectPair, McpServer } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const telemetry = setupTelemetry();
const SECRET = 'secret-argument-value-4711';

function server(): McpServer {
  const s = new McpServer({ name: 'sec', version: '1.0.0' });
  s.registerTool('long', { description: 'long failure' }, async () => {
    throw new Error('x'.repeat(100_000));
  });
  s.registerTool('echo', { description: 'echo' }, async (extra) => ({
    content: [{ type: 'text', text: `${SECRET} ${JSON.stringify(extra._meta ?? {})}` }],
  }));
  s.registerTool(
    'later',
    { description: 'retry in 975 years', annotations: { idempotentHint: true } },
    async () =>
      toolFailure({
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        retryNotBefore: Date.UTC(3000, 0, 1),
      }) as never,
  );
  return s;
}

afterEach(() => {
  telemetry.instrumentation.setConfig({});
  telemetry.reset();
});

describe('security', () => {
  it('caps attribute and event values; arguments and results are not recorded by default', async () => {
    const pair = await connectPair(server());
    await pair.client.callTool({ name: 'long', arguments: {} });
    await pair.client.callTool({ name: 'echo', arguments: { q: SECRET } });
    await pair.close();
    const spans = telemetry.finished();
    for (const name of ['tools/call long', 'tools/call echo'])
      expect(spans.filter((s) => s.name === name).map((s) => s.kind)).toEqual(
        expect.arrayContaining([1, 2]),
      );
    // The 100,000-character message of the thrown error is on the server span, capped.
    const longServer = spans.find((s) => s.kind === 1 && s.name === 'tools/call long');
    expect(longServer?.status.message?.length).toBeGreaterThan(0);
    for (const span of spans) {
      for (const v of Object.values(span.attributes)) {
        if (typeof v === 'string') expect(v.length).toBeLessThanOrEqual(16_384);
        expect(String(v)).not.toContain(SECRET);
      }
      expect(span.status.message?.length ?? 0).toBeLessThanOrEqual(256);
      for (const e of span.events)
        for (const v of Object.values(e.attributes ?? {}))
          if (typeof v === 'string') expect(v.length).toBeLessThanOrEqual(100_000 + 1024);
    }
  });

  it('correlationId is the trace id, never request data', async () => {
    const pair = await connectPair(server());
    const r = await pair.client.callTool({ name: 'long', arguments: { q: SECRET } });
    await pair.close();
    const failure = (r._meta as Record<string, { correlationId: string }>)[TOOL_FAILURE_META_KEY];
    expect(failure?.correlationId).toMatch(/^[0-9a-f]{32}$/);
    const serverSpan = telemetry
      .finished()
      .find((s) => s.kind === 1 && s.name === 'tools/call long');
    expect(failure?.correlationId).toBe(serverSpan?.spanContext().traceId);
  });

  it('with trustIncomingContext: false a client cannot choose the server trace id', async () => {
    telemetry.instrumentation.setConfig({ trustIncomingContext: false });
    const pair = await connectPair(server());
    const chosen = 'abcdefabcdefabcdefabcdefabcdef12';
    await context.with(ROOT_CONTEXT, () =>
      pair.client.callTool({
        name: 'echo',
        arguments: {},
        _meta: { traceparent: `00-${chosen}-1234567812345678-01` },
      }),
    );
    await pair.close();
    const serverSpan = telemetry
      .finished()
      .find((s) => s.kind === 1 && s.name === 'tools/call echo');
    expect(serverSpan).toBeDefined();
    expect(serverSpan?.spanContext().traceId).not.toBe(chosen);
  });

  it('a retryNotBefore in the year 3000 ends the call at once with budget_exhausted', async () => {
    const pair = await connectPair(server());
    const client = withToolRetry(pair.client, { maxAttempts: 5, maxElapsedMs: 5_000 });
    const report = await client.callToolWithRetry({ name: 'later', arguments: {} });
    await pair.close();
    // One attempt and the budget's verdict: the policy did not wait for the year 3000.
    expect(report.outcome).toBe('budget_exhausted');
    expect(report.attempts).toBe(1);
  });
});
