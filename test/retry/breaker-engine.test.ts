/**
 * The circuit breaker inside the retry engine (`circuitBreaker` policy option), with a real SDK
 * 1.x client and server, fake time, and in-memory span and metric exporters.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_TOOL_CALL_CIRCUIT_PREVIOUS_STATE,
  ATTR_MCP_TOOL_CALL_CIRCUIT_STATE,
  ATTR_MCP_TOOL_CALL_RETRY_DELAY_SOURCE,
  ATTR_MCP_TOOL_CALL_STOP_REASON,
  EVENT_MCP_TOOL_CALL_CIRCUIT_TRANSITION,
  EVENT_MCP_TOOL_CALL_RETRY,
  METRIC_MCP_TOOL_CALL_CIRCUIT_STATUS,
  METRIC_MCP_TOOL_CALL_CIRCUIT_TRANSITIONS,
} from '../../src/semconv.js';
import { createToolRetry, withToolRetry } from '../../src/retry/index.js';
import {
  TOOL_FAILURE_META_KEY as KEY,
  readToolFailure,
} from '../../packages/tool-failure/src/index.js';
import { setupTracing } from '../helpers/otel.js';
import { T0, drive } from './fake-time.js';
import { metricPoints, useFakeTimeAndMeters } from './meters.js';
import { fail, ok, transient, v1Pair } from './mcp-v1-pair.js';

const { exporter } = setupTracing();

const idem = { idempotentHint: true };
const half = (): number => 0.5;
const breaker = { failureThreshold: 3, openMs: 1000 };

describe('withToolRetry() with circuitBreaker', () => {
  const meters = useFakeTimeAndMeters(exporter);

  it('is off by default: every failing call is sent', async () => {
    const pair = await v1Pair({ down: { script: () => fail(transient()) } });
    const client = withToolRetry(pair.client, { retryBudget: false });
    for (let i = 0; i < 10; i++) await drive(client.callTool({ name: 'down' }));
    expect(pair.calls.get('down')).toBe(10);
    await pair.close();
  });

  it('circuitTools: a tool it refuses has no circuit (never held back, never counted); a throwing one refuses', async () => {
    const pair = await v1Pair({
      down: { script: () => fail(transient()) },
      other: { script: () => fail(transient()) },
      odd: { script: () => fail(transient()) },
    });
    const engine = createToolRetry({
      circuitBreaker: breaker,
      circuitTools: (name) => {
        if (name === 'odd') throw new Error('broken predicate');
        return name === 'down';
      },
    });
    const client = engine.wrap(pair.client);
    for (let i = 0; i < 5; i++) {
      await client.callTool({ name: 'down' });
      await client.callTool({ name: 'other' });
      await client.callTool({ name: 'odd' });
    }
    expect(pair.calls.get('down')).toBe(3);
    expect(pair.calls.get('other')).toBe(5);
    expect(pair.calls.get('odd')).toBe(5);
    expect(engine.circuitState('down')).toBe('open');
    expect(engine.circuitState('other')).toBe('closed');
    await pair.close();
  });

  it('reliability failures open it; an open circuit answers at once with its own failure', async () => {
    const pair = await v1Pair({ down: { script: () => fail(transient()) } });
    const client = withToolRetry(pair.client, {
      circuitBreaker: breaker,
      meterProvider: meters.provider,
    });
    // Not retried (no idempotentHint), answered in microtasks: no time passes.
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'down' });
    expect(pair.calls.get('down')).toBe(3);
    exporter.reset();
    const report = await client.callToolWithRetry({ name: 'down' }); // no time passes
    expect(pair.calls.get('down')).toBe(3);
    expect(report.result).toMatchObject({ isError: true });
    const span = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call down')!;
    expect(report.failure).toEqual({
      class: 'reliability',
      code: 'circuit_open',
      retryable: true,
      retryNotBefore: T0 + 1000,
      correlationId: span.spanContext().traceId,
      agentGuidance: expect.any(String),
    });
    // Built with the package's builder: a valid failure object under the proposal's key.
    expect(readToolFailure(report.result).status).toBe('valid');
    expect((report.result as { _meta: Record<string, unknown> })._meta[KEY]).toEqual(
      report.failure,
    );
    expect(span.attributes[ATTR_MCP_TOOL_CALL_CIRCUIT_STATE]).toBe('open');
    await pair.close();
  });

  it('capability and governance failures never open it', async () => {
    const pair = await v1Pair({
      cap: { script: () => fail({ class: 'capability', code: 'invalid_input' }) },
      gov: { script: () => fail({ class: 'governance', code: 'auth_required' }) },
    });
    const client = withToolRetry(pair.client, { circuitBreaker: { failureThreshold: 1 } });
    for (let i = 0; i < 5; i++) {
      await drive(client.callTool({ name: 'cap' }));
      await drive(client.callTool({ name: 'gov' }));
    }
    expect(pair.calls.get('cap')).toBe(5);
    expect(pair.calls.get('gov')).toBe(5);
    await pair.close();
  });

  it('transport errors (thrown, classified reliability) open it', async () => {
    let sent = 0;
    const broken = {
      callTool: async (_params: { name: string }): Promise<never> => {
        sent += 1;
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      },
    };
    const retry = createToolRetry({ circuitBreaker: breaker });
    const client = retry.wrap(broken);
    for (let i = 0; i < 3; i++) await expect(client.callTool({ name: 'x' })).rejects.toThrow();
    expect(retry.circuitState('x')).toBe('open');
    const result = await client.callTool({ name: 'x' });
    expect(sent).toBe(3);
    expect(readToolFailure(result)).toMatchObject({
      status: 'valid',
      failure: { class: 'reliability', code: 'circuit_open' },
    });
  });

  it('half-open lets one probe through; its success closes the circuit', async () => {
    let healthy = false;
    const pair = await v1Pair({ t: { script: () => (healthy ? ok() : fail(transient())) } });
    const retry = createToolRetry({ circuitBreaker: breaker, meterProvider: meters.provider });
    const client = retry.wrap(pair.client);
    for (let i = 0; i < 3; i++) await drive(client.callTool({ name: 't' }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(retry.circuitState('t')).toBe('half_open');
    healthy = true;
    exporter.reset();
    const probe = await drive(client.callToolWithRetry({ name: 't' }));
    expect(probe.outcome).toBe('success');
    expect(retry.circuitState('t')).toBe('closed');
    const span = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call t')!;
    expect(
      span.events
        .filter((e) => e.name === EVENT_MCP_TOOL_CALL_CIRCUIT_TRANSITION)
        .map((e) => [
          e.attributes?.[ATTR_MCP_TOOL_CALL_CIRCUIT_PREVIOUS_STATE],
          e.attributes?.[ATTR_MCP_TOOL_CALL_CIRCUIT_STATE],
        ]),
    ).toEqual([
      ['open', 'half_open'],
      ['half_open', 'closed'],
    ]);
    expect(span.attributes[ATTR_MCP_TOOL_CALL_CIRCUIT_STATE]).toBe('closed');
    for (let i = 0; i < 3; i++) await drive(client.callTool({ name: 't' }));
    expect(pair.calls.get('t')).toBe(7);
    await pair.close();
  });

  it('a failed probe reopens it for another openMs', async () => {
    const pair = await v1Pair({ t: { script: () => fail(transient()) } });
    const retry = createToolRetry({ circuitBreaker: breaker });
    const client = retry.wrap(pair.client);
    for (let i = 0; i < 3; i++) await client.callTool({ name: 't' });
    await vi.advanceTimersByTimeAsync(1000);
    const probe = await client.callToolWithRetry({ name: 't' });
    expect(probe.failure?.code).toBe('retryable_transient_error');
    expect(retry.circuitState('t')).toBe('open');
    const refused = await client.callToolWithRetry({ name: 't' });
    expect(refused.failure).toMatchObject({ code: 'circuit_open', retryNotBefore: T0 + 2000 });
    expect(pair.calls.get('t')).toBe(4);
    await pair.close();
  });

  it("the engine's own retries wait for the half-open time instead of hammering", async () => {
    const pair = await v1Pair({ t: { annotations: idem, script: () => fail(transient()) } });
    const client = withToolRetry(pair.client, {
      maxAttempts: 5,
      random: half,
      retryBudget: false,
      backoff: { initialDelayMs: 10, maxDelayMs: 10 },
      circuitBreaker: { failureThreshold: 2, openMs: 1000 },
    });
    exporter.reset();
    const report = await drive(client.callToolWithRetry({ name: 't' }));
    // 2 failures open it; attempts 3, 4, 5 are probes 1 s apart, each reopening it.
    expect(report).toMatchObject({ attempts: 5, outcome: 'retries_exhausted' });
    expect(pair.calls.get('t')).toBe(5);
    expect(report.failure?.code).toBe('retryable_transient_error');
    expect(report.elapsedMs).toBeGreaterThanOrEqual(3000);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call t')!;
    expect(
      span.events
        .filter((e) => e.name === EVENT_MCP_TOOL_CALL_RETRY)
        .map((e) => e.attributes?.[ATTR_MCP_TOOL_CALL_RETRY_DELAY_SOURCE]),
    ).toEqual(['backoff', 'circuit_open', 'circuit_open', 'circuit_open']);
    await pair.close();
  });

  it('a call that finds the circuit open is answered at once, even for a retryable idempotent tool', async () => {
    const pair = await v1Pair({ t: { annotations: idem, script: () => fail(transient()) } });
    const client = withToolRetry(pair.client, {
      maxAttempts: 3,
      random: half,
      retryBudget: false,
      backoff: { initialDelayMs: 10, maxDelayMs: 10 },
      circuitBreaker: { failureThreshold: 2, openMs: 5000 },
    });
    // Two failures open the circuit; the third attempt is a probe 5 s later, which reopens it.
    await drive(client.callToolWithRetry({ name: 't' }));
    expect(pair.calls.get('t')).toBe(3);
    const before = Date.now();
    const report = await client.callToolWithRetry({ name: 't' }); // no timer is driven
    expect(Date.now()).toBe(before);
    expect(pair.calls.get('t')).toBe(3);
    expect(report).toMatchObject({
      attempts: 1,
      outcome: 'failure',
      decision: { action: 'stop', reason: 'circuit_open' },
      failure: { class: 'reliability', code: 'circuit_open', retryable: true },
    });
    await pair.close();
  });

  it('stops when the half-open time lies beyond the time budget, keeping the server failure', async () => {
    const pair = await v1Pair({ t: { annotations: idem, script: () => fail(transient()) } });
    const client = withToolRetry(pair.client, {
      maxAttempts: 5,
      maxElapsedMs: 5000,
      random: half,
      retryBudget: false,
      circuitBreaker: { failureThreshold: 2, openMs: 60_000 },
    });
    exporter.reset();
    const report = await drive(client.callToolWithRetry({ name: 't' }));
    expect(report).toMatchObject({
      attempts: 2,
      outcome: 'budget_exhausted',
      decision: { action: 'stop', reason: 'circuit_open' },
      failure: { code: 'retryable_transient_error' },
    });
    expect(pair.calls.get('t')).toBe(2);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call t')!;
    expect(span.attributes[ATTR_MCP_TOOL_CALL_STOP_REASON]).toBe('circuit_open');
    await pair.close();
  });

  it('exports the state per tool (1 for the current state) and counts transitions', async () => {
    const pair = await v1Pair({ t: { script: () => fail(transient()) } });
    const retry = createToolRetry({ circuitBreaker: breaker, meterProvider: meters.provider });
    const client = retry.wrap(pair.client);
    for (let i = 0; i < 3; i++) await drive(client.callTool({ name: 't' }));
    const status = await metricPoints(meters.reader, METRIC_MCP_TOOL_CALL_CIRCUIT_STATUS);
    expect(
      Object.fromEntries(
        status
          .filter((p) => p.attributes[ATTR_GEN_AI_TOOL_NAME] === 't')
          .map((p) => [p.attributes[ATTR_MCP_TOOL_CALL_CIRCUIT_STATE], p.value]),
      ),
    ).toEqual({ closed: 0, open: 1, half_open: 0 });
    await vi.advanceTimersByTimeAsync(1000);
    await drive(client.callTool({ name: 't' })); // the probe fails: open again
    const transitions = await metricPoints(meters.reader, METRIC_MCP_TOOL_CALL_CIRCUIT_TRANSITIONS);
    expect(
      Object.fromEntries(
        transitions.map((p) => [p.attributes[ATTR_MCP_TOOL_CALL_CIRCUIT_STATE], p.value]),
      ),
    ).toEqual({ open: 2, half_open: 1 });
    await pair.close();
  });

  it('does not charge the retry budget for calls it did not send', async () => {
    const budget = { canRetry: () => true, recordFailure: vi.fn(), recordSuccess: vi.fn() };
    const pair = await v1Pair({ t: { script: () => fail(transient()) } });
    const client = withToolRetry(pair.client, { circuitBreaker: breaker, retryBudget: budget });
    for (let i = 0; i < 5; i++) await drive(client.callTool({ name: 't' }));
    expect(pair.calls.get('t')).toBe(3);
    expect(budget.recordFailure).toHaveBeenCalledTimes(3);
    await pair.close();
  });

  it('refuses a bad circuitBreaker option with a RangeError', () => {
    expect(() => createToolRetry({ circuitBreaker: { failureThreshold: 0 } })).toThrow(RangeError);
    expect(() => createToolRetry({ circuitBreaker: 'yes' as unknown as boolean })).toThrow(
      /circuitBreaker/,
    );
  });
});
