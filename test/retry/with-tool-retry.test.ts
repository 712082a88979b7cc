import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRetryBudget, toolCallReportOf, withToolRetry } from '../../src/retry/index.js';
import { TOOL_FAILURE_META_KEY, toolFailure } from '../../packages/tool-failure/src/index.js';
import type { GiveUpInfo, RetryEventInfo } from '../../src/retry/index.js';
import { T0, drive, flush, useFakeTime } from './fake-time.js';
import { fail, failTimes, ok, transient, v1Pair } from './mcp-v1-pair.js';

const idem = { idempotentHint: true };
/** Deterministic jitter: half of the exponential delay. */
const half = (): number => 0.5;

describe('withToolRetry() with a real SDK 1.x client', () => {
  beforeEach(() => useFakeTime());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a tool failing transiently twice then succeeding takes 3 attempts and succeeds', async () => {
    const pair = await v1Pair({
      flaky: { annotations: idem, script: failTimes(2, () => transient()) },
    });
    const client = withToolRetry(pair.client, { random: half, retryBudget: false });
    const report = await drive(client.callToolWithRetry({ name: 'flaky' }));
    expect(report).toMatchObject({
      outcome: 'success',
      attempts: 3,
      failure: undefined,
      decision: undefined,
    });
    expect(report.result).toEqual(ok());
    expect(pair.calls.get('flaky')).toBe(3);
    await pair.close();
  });

  it('reads the failure under the metaKey it is given, as servers with that key write it', async () => {
    const metaKey = 'com.example/toolFailure';
    const script = (n: number) =>
      n <= 1 ? (toolFailure(transient(), { metaKey }) as CallToolResult) : ok();
    const pair = await v1Pair({ flaky: { annotations: idem, script } });
    const custom = withToolRetry(pair.client, { metaKey, random: half, retryBudget: false });
    const report = await drive(custom.callToolWithRetry({ name: 'flaky' }));
    expect(report).toMatchObject({ outcome: 'success', attempts: 2 });
    // Read with the proposal's key, the same failure is not a classified one: not retried.
    const standard = withToolRetry(pair.client, { random: half, retryBudget: false });
    pair.calls.set('flaky', 0);
    const unread = await drive(standard.callToolWithRetry({ name: 'flaky' }));
    expect(unread).toMatchObject({
      outcome: 'failure',
      attempts: 1,
      reading: { status: 'absent' },
    });
    expect(() => withToolRetry(pair.client, { metaKey: '' })).toThrow(
      /metaKey must be a non-empty string/,
    );
    await pair.close();
  });

  it('callTool resolves to the last CallToolResult unchanged; the report sits beside it', async () => {
    const pair = await v1Pair({
      denied: {
        annotations: idem,
        script: () => fail({ class: 'governance', code: 'auth_required', correlationId: 'corr-1' }),
      },
    });
    const client = withToolRetry(pair.client);
    const result = await client.callTool({ name: 'denied' });
    expect(result).toEqual(
      fail({ class: 'governance', code: 'auth_required', correlationId: 'corr-1' }),
    );
    expect(Object.keys(result).sort()).toEqual(['_meta', 'content', 'isError']);
    expect(toolCallReportOf(result)).toMatchObject({
      outcome: 'failure',
      attempts: 1,
      failure: { class: 'governance', code: 'auth_required', correlationId: 'corr-1' },
      decision: { action: 'out_of_band', reason: 'governance' },
    });
    await pair.close();
  });

  it('does not retry capability failures: surfaces them with the agent guidance', async () => {
    const pair = await v1Pair({
      unsupported: {
        annotations: idem,
        script: () =>
          fail({
            class: 'capability',
            code: 'capability_unsupported',
            agentGuidance: 'Use export_csv.',
          }),
      },
    });
    const report = await withToolRetry(pair.client).callToolWithRetry({ name: 'unsupported' });
    expect(pair.calls.get('unsupported')).toBe(1);
    expect(report.decision).toMatchObject({ action: 'surface', agentGuidance: 'Use export_csv.' });
    await pair.close();
  });

  it('does not retry governance failures: they need out-of-band action', async () => {
    const pair = await v1Pair({
      blocked: {
        annotations: idem,
        script: () => fail({ class: 'governance', code: 'policy_blocked' }),
      },
    });
    const report = await withToolRetry(pair.client).callToolWithRetry({ name: 'blocked' });
    expect(pair.calls.get('blocked')).toBe(1);
    expect(report).toMatchObject({ outcome: 'failure', decision: { action: 'out_of_band' } });
    await pair.close();
  });

  it('does not retry a tool that declares idempotentHint: false', async () => {
    const pair = await v1Pair({
      write: { annotations: { idempotentHint: false }, script: failTimes(1, () => transient()) },
    });
    const report = await drive(withToolRetry(pair.client).callToolWithRetry({ name: 'write' }));
    expect(pair.calls.get('write')).toBe(1);
    expect(report).toMatchObject({
      outcome: 'failure',
      decision: { action: 'stop', reason: 'not_idempotent' },
    });
    await pair.close();
  });

  it('does not retry an unannotated tool; it looks the tool up in tools/list once', async () => {
    const pair = await v1Pair({ plain: { script: failTimes(5, () => transient()) } });
    const client = withToolRetry(pair.client);
    const first = await drive(client.callToolWithRetry({ name: 'plain' }));
    const second = await drive(client.callToolWithRetry({ name: 'plain' }));
    expect(pair.calls.get('plain')).toBe(2);
    expect(first.decision).toMatchObject({ action: 'stop', reason: 'not_idempotent' });
    expect(second.decision).toMatchObject({ action: 'stop', reason: 'not_idempotent' });
    expect(pair.listCalls()).toBe(1);
    await pair.close();
  });

  it('does not retry a reliability failure without retryable: true', async () => {
    const pair = await v1Pair({
      once: { annotations: idem, script: failTimes(1, () => transient({ retryable: false })) },
    });
    const report = await drive(withToolRetry(pair.client).callToolWithRetry({ name: 'once' }));
    expect(pair.calls.get('once')).toBe(1);
    expect(report.decision).toMatchObject({ action: 'stop', reason: 'not_retryable' });
    await pair.close();
  });

  it('does not retry before retryNotBefore: not at 1 ms before, at once at the time', async () => {
    const pair = await v1Pair({
      slow: {
        annotations: idem,
        script: failTimes(1, () => transient({ retryNotBefore: Date.now() + 5_000 })),
      },
    });
    const client = withToolRetry(pair.client, { random: () => 0 });
    const pending = client.callToolWithRetry({ name: 'slow' });
    await flush();
    expect(pair.calls.get('slow')).toBe(1);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(pair.calls.get('slow')).toBe(1);
    expect(Date.now()).toBe(T0 + 4_999);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(pair.calls.get('slow')).toBe(2);
    await expect(pending).resolves.toMatchObject({ outcome: 'success', attempts: 2 });
    await pair.close();
  });

  it('ends at once with budget_exhausted when retryNotBefore lies beyond the time budget', async () => {
    const pair = await v1Pair({
      later: {
        annotations: idem,
        script: () => fail(transient({ retryNotBefore: Date.now() + 60_000 })),
      },
    });
    const report = await withToolRetry(pair.client, { maxElapsedMs: 10_000 }).callToolWithRetry({
      name: 'later',
    });
    expect(Date.now()).toBe(T0);
    expect(pair.calls.get('later')).toBe(1);
    expect(report).toMatchObject({
      outcome: 'budget_exhausted',
      decision: { action: 'stop', reason: 'retry_not_before_beyond_budget' },
    });
    await pair.close();
  });

  it('stops after maxAttempts with retries_exhausted', async () => {
    const pair = await v1Pair({ down: { annotations: idem, script: () => fail(transient()) } });
    const client = withToolRetry(pair.client, { maxAttempts: 4, retryBudget: false, random: half });
    const report = await drive(client.callToolWithRetry({ name: 'down' }));
    expect(pair.calls.get('down')).toBe(4);
    expect(report).toMatchObject({ outcome: 'retries_exhausted', attempts: 4 });
    await pair.close();
  });

  it('an abort during backoff rejects promptly with the reason and leaves no timer', async () => {
    const pair = await v1Pair({
      slow: {
        annotations: idem,
        script: () => fail(transient({ retryNotBefore: Date.now() + 20_000 })),
      },
    });
    const controller = new AbortController();
    const giveUps: GiveUpInfo[] = [];
    const client = withToolRetry(pair.client, { onGiveUp: (i) => giveUps.push(i) });
    const pending = client.callTool({ name: 'slow' }, undefined, { signal: controller.signal });
    pending.catch(() => undefined);
    await flush();
    expect(pair.calls.get('slow')).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('user cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(Date.now()).toBe(T0);
    expect(vi.getTimerCount()).toBe(0);
    expect(pair.calls.get('slow')).toBe(1);
    expect(giveUps).toMatchObject([
      { toolName: 'slow', attempts: 1, outcome: 'aborted', error: reason },
    ]);
    await pair.close();
  });

  it('the shared retry budget stops a retry storm against an always-failing server', async () => {
    const pair = await v1Pair({ down: { annotations: idem, script: () => fail(transient()) } });
    const budget = createRetryBudget({ maxTokens: 10, tokenRatio: 0.1 });
    const client = withToolRetry(pair.client, {
      maxAttempts: 5,
      retryBudget: budget,
      random: () => 0,
    });
    const outcomes: string[] = [];
    for (let i = 0; i < 50; i++) {
      outcomes.push((await drive(client.callToolWithRetry({ name: 'down' }))).outcome);
    }
    // Without the budget: 50 calls x 5 attempts = 250. With it, a handful of retries in all.
    expect(pair.calls.get('down')).toBe(50 + 4);
    expect(outcomes[0]).toBe('retries_exhausted');
    expect(outcomes.slice(1).every((o) => o === 'budget_exhausted')).toBe(true);
    expect(budget.canRetry()).toBe(false);
    await pair.close();
  });

  it('successes refill the shared budget', async () => {
    const pair = await v1Pair({
      down: { annotations: idem, script: () => fail(transient()) },
      fine: { annotations: idem, script: () => ok() },
    });
    const budget = createRetryBudget();
    const client = withToolRetry(pair.client, {
      maxAttempts: 2,
      retryBudget: budget,
      random: () => 0,
    });
    for (let i = 0; i < 3; i++) await drive(client.callToolWithRetry({ name: 'down' }));
    expect(budget.tokens).toBe(5);
    expect(budget.canRetry()).toBe(false);
    await client.callTool({ name: 'fine' });
    expect(budget.canRetry()).toBe(true);
    await pair.close();
  });

  it('does not retry thrown errors (timeouts, JSON-RPC errors) by default', async () => {
    const pair = await v1Pair({
      hang: {
        annotations: idem,
        script: (n) => (n === 1 ? new Promise((r) => setTimeout(() => r(ok()), 1_000)) : ok()),
      },
    });
    const client = withToolRetry(pair.client);
    const pending = client.callTool({ name: 'hang' }, undefined, { timeout: 100 });
    await expect(drive(pending)).rejects.toMatchObject({ code: -32001 });
    expect(pair.calls.get('hang')).toBe(1);
    await pair.close();
  });

  it('retries thrown errors of idempotent tools when retryOnThrow is set', async () => {
    const pair = await v1Pair({
      hang: {
        annotations: idem,
        script: (n) => (n === 1 ? new Promise((r) => setTimeout(() => r(ok()), 1_000)) : ok()),
      },
    });
    const retries: RetryEventInfo[] = [];
    const client = withToolRetry(pair.client, {
      retryOnThrow: true,
      onRetry: (i) => retries.push(i),
    });
    const report = await drive(
      client.callToolWithRetry({ name: 'hang' }, undefined, { timeout: 100 }),
    );
    expect(report).toMatchObject({ outcome: 'success', attempts: 2 });
    expect(retries).toMatchObject([
      { reason: 'retryable_error', failure: { class: 'reliability', code: 'timeout' } },
    ]);
    await pair.close();
  });

  it('uses annotations seen through the wrapped listTools, without another tools/list', async () => {
    const pair = await v1Pair({
      flaky: { annotations: idem, script: failTimes(1, () => transient()) },
    });
    const client = withToolRetry(pair.client, { random: () => 0 });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['flaky']);
    const report = await drive(client.callToolWithRetry({ name: 'flaky' }));
    expect(report).toMatchObject({ outcome: 'success', attempts: 2 });
    expect(pair.listCalls()).toBe(1);
    await pair.close();
  });

  it('prefers the getToolAnnotations provider and never lists tools then', async () => {
    const pair = await v1Pair({ flaky: { script: failTimes(1, () => transient()) } });
    const provider = vi.fn(async (name: string) =>
      name === 'flaky' ? { idempotentHint: true } : undefined,
    );
    const client = withToolRetry(pair.client, { getToolAnnotations: provider, random: () => 0 });
    const report = await drive(client.callToolWithRetry({ name: 'flaky' }));
    expect(report.attempts).toBe(2);
    expect(provider).toHaveBeenCalledWith('flaky');
    expect(pair.listCalls()).toBe(0);
    await pair.close();
  });

  it('calls onRetry and onGiveUp; hooks that throw or reject never break the call', async () => {
    const pair = await v1Pair({
      down: { annotations: idem, script: () => fail(transient({ code: 'vendor_busy' })) },
    });
    const seen: string[] = [];
    const client = withToolRetry(pair.client, {
      maxAttempts: 3,
      retryBudget: false,
      random: half,
      onRetry: (i) => {
        seen.push(`retry ${i.attempt} ${i.delayMs} ${i.failure.code}`);
        throw new Error('hook bug');
      },
      onGiveUp: (i) => {
        seen.push(`give up ${i.outcome} ${i.attempts}`);
        return Promise.reject(new Error('async hook bug')) as unknown as void;
      },
    });
    const report = await drive(client.callToolWithRetry({ name: 'down' }));
    expect(report.outcome).toBe('retries_exhausted');
    expect(seen).toEqual([
      'retry 1 125 vendor_busy',
      'retry 2 250 vendor_busy',
      'give up retries_exhausted 3',
    ]);
    await pair.close();
  });

  it('a broken retry budget or tracer provider never breaks the call', async () => {
    const pair = await v1Pair({
      flaky: { annotations: idem, script: failTimes(1, () => transient()) },
    });
    const boom = (): never => {
      throw new Error('broken');
    };
    const client = withToolRetry(pair.client, {
      random: () => 0,
      retryBudget: { canRetry: boom, recordFailure: boom, recordSuccess: boom },
      tracerProvider: { getTracer: boom },
    });
    const report = await drive(client.callToolWithRetry({ name: 'flaky' }));
    // A budget that cannot answer allows no retry.
    expect(report).toMatchObject({
      outcome: 'budget_exhausted',
      decision: { reason: 'retry_budget_exhausted' },
    });
    await pair.close();
  });

  it('never retries a malformed failure object', async () => {
    const pair = await v1Pair({
      bad: {
        annotations: idem,
        script: () => ({
          isError: true,
          content: [{ type: 'text', text: 'x' }],
          _meta: { [TOOL_FAILURE_META_KEY]: { class: 'reliability', code: 'x', retryable: true } },
        }),
      },
    });
    const report = await drive(withToolRetry(pair.client).callToolWithRetry({ name: 'bad' }));
    expect(pair.calls.get('bad')).toBe(1);
    expect(report).toMatchObject({
      outcome: 'failure',
      reading: { status: 'invalid' },
      decision: { reason: 'malformed' },
    });
    await pair.close();
  });

  it('forwards everything else to the real client, unmodified', async () => {
    const pair = await v1Pair({ fine: { script: () => ok() } });
    const client = withToolRetry(pair.client);
    expect(client.getServerVersion()).toEqual({ name: 'retry-test-server', version: '1.0.0' });
    expect(await client.ping()).toEqual({});
    expect(Object.prototype.hasOwnProperty.call(pair.client, 'callToolWithRetry')).toBe(false);
    expect(pair.client.callTool).not.toBe(client.callTool);
    await pair.close();
  });

  it('rejects nonsense limits when wrapping', async () => {
    const pair = await v1Pair({});
    expect(() => withToolRetry(pair.client, { maxAttempts: 0 })).toThrow(RangeError);
    expect(() => withToolRetry(pair.client, { maxElapsedMs: -1 })).toThrow(RangeError);
    // The telemetry options too: a bad value is said at once rather than silently replaced.
    for (const rate of [-1, Number.NaN, '5' as unknown as number])
      expect(() => withToolRetry(pair.client, { maxFailureLogsPerSecond: rate })).toThrow(
        /maxFailureLogsPerSecond must be a number >= 0/,
      );
    expect(() =>
      withToolRetry(pair.client, { exceptionSignal: 'events' as unknown as 'logs' }),
    ).toThrow(/exceptionSignal must be 'logs' or 'logs\/dup'/);
    for (const ok of [0, 2.5, Infinity])
      expect(() => withToolRetry(pair.client, { maxFailureLogsPerSecond: ok })).not.toThrow();
    await pair.close();
  });
});
