import { SpanKind } from '@opentelemetry/api';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs';
import { describe, expect, it, vi } from 'vitest';
import {
  ATTR_MCP_TOOL_CALL_ATTEMPT,
  EVENT_MCP_TOOL_CALL_RETRY,
  METRIC_MCP_TOOL_CALL_RETRIES,
} from '../../src/semconv.js';
import { PACKAGE_NAME, instrumentClient } from '../../src/index.js';
import { withToolRetry, type ToolRetryPolicy } from '../../src/retry/index.js';
import { setupTracing } from '../helpers/otel.js';
import { drive } from './fake-time.js';
import { metricPoints, useFakeTimeAndMeters } from './meters.js';
import { fail, failTimes, transient, v1Pair } from './mcp-v1-pair.js';

const { exporter } = setupTracing();

describe('retry telemetry', () => {
  const meters = useFakeTimeAndMeters(exporter);

  it('one INTERNAL span covers all attempts; each attempt runs in its context with its number', async () => {
    const pair = await v1Pair({
      flaky: {
        annotations: { idempotentHint: true },
        script: failTimes(2, () => transient({ code: 'vendor_busy', correlationId: 'corr-9' })),
      },
    });
    // The package's client instrumentation (manual mode) on this real client: its `tools/call`
    // span carries the attempt the retry policy runs it in.
    instrumentClient(pair.client);
    const client = withToolRetry(pair.client, {
      random: () => 0.5,
      retryBudget: false,
      meterProvider: meters.provider,
    });
    await drive(client.callToolWithRetry({ name: 'flaky', arguments: {} }));

    const spans = exporter.getFinishedSpans();
    const logical = spans.find((s) => s.name === 'mcp.tool.call flaky');
    expect(logical).toBeDefined();
    expect(logical?.kind).toBe(SpanKind.INTERNAL);
    expect(logical?.attributes).toMatchObject({
      'gen_ai.tool.name': 'flaky',
      'mcp.tool.call.attempts': 3,
      'mcp.tool.call.outcome': 'success',
    });
    expect(logical?.attributes).not.toHaveProperty('mcp.tool.failure.class');
    expect(logical?.status.code).toBe(0);

    const attempts = spans.filter((s) => s.name === 'tools/call flaky');
    expect(attempts.map((s) => s.attributes[ATTR_MCP_TOOL_CALL_ATTEMPT])).toEqual([1, 2, 3]);
    for (const a of attempts) {
      expect(a.kind).toBe(SpanKind.CLIENT);
      expect(a.instrumentationScope.name).toBe(PACKAGE_NAME);
      expect(a.parentSpanContext?.spanId).toBe(logical?.spanContext().spanId);
      expect(a.spanContext().traceId).toBe(logical?.spanContext().traceId);
    }

    const events = logical?.events.filter((e) => e.name === EVENT_MCP_TOOL_CALL_RETRY) ?? [];
    expect(events.map((e) => e.attributes)).toEqual([
      {
        'mcp.tool.call.attempt': 1,
        'mcp.tool.call.retry.delay_ms': 125,
        'mcp.tool.call.retry.reason': 'retryable_failure',
        'mcp.tool.call.retry.delay_source': 'backoff',
        'mcp.tool.failure.class': 'reliability',
        'mcp.tool.failure.code': 'vendor_busy',
      },
      {
        'mcp.tool.call.attempt': 2,
        'mcp.tool.call.retry.delay_ms': 250,
        'mcp.tool.call.retry.reason': 'retryable_failure',
        'mcp.tool.call.retry.delay_source': 'backoff',
        'mcp.tool.failure.class': 'reliability',
        'mcp.tool.failure.code': 'vendor_busy',
      },
    ]);

    const points = await metricPoints(meters.reader, METRIC_MCP_TOOL_CALL_RETRIES);
    expect(points).toHaveLength(1);
    expect(points[0]?.value).toBe(2);
    expect(points[0]?.attributes).toEqual({
      'gen_ai.tool.name': 'flaky',
      'mcp.tool.call.outcome': 'success',
    });
    await pair.close();
  });

  it('a failed call carries the final failure, the action and an error status', async () => {
    const pair = await v1Pair({
      down: {
        annotations: { idempotentHint: true },
        script: () => fail(transient({ code: 'vendor_busy', correlationId: 'corr-7' })),
      },
      denied: {
        script: () => fail({ class: 'governance', code: 'auth_required', correlationId: 'corr-8' }),
      },
    });
    const client = withToolRetry(pair.client, {
      maxAttempts: 2,
      random: () => 0,
      retryBudget: false,
      meterProvider: meters.provider,
    });
    await drive(client.callToolWithRetry({ name: 'down' }));
    await client.callToolWithRetry({ name: 'denied' });

    const down = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call down');
    expect(down?.attributes).toMatchObject({
      'mcp.tool.call.attempts': 2,
      'mcp.tool.call.outcome': 'retries_exhausted',
      'mcp.tool.failure.class': 'reliability',
      'mcp.tool.failure.code': 'vendor_busy',
      'mcp.tool.failure.correlation_id': 'corr-7',
      'mcp.tool.call.action': 'stop',
      'mcp.tool.call.stop_reason': 'attempts_exhausted',
      'error.type': 'tool_error',
    });
    expect(down?.status.code).toBe(2);
    const denied = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call denied');
    expect(denied?.attributes).toMatchObject({
      'mcp.tool.call.attempts': 1,
      'mcp.tool.call.outcome': 'failure',
      'mcp.tool.failure.class': 'governance',
      'mcp.tool.failure.code': 'auth_required',
      'mcp.tool.failure.correlation_id': 'corr-8',
      'mcp.tool.call.action': 'out_of_band',
    });
    expect(denied?.events).toEqual([]);

    const points = await metricPoints(meters.reader, METRIC_MCP_TOOL_CALL_RETRIES);
    const byTool = Object.fromEntries(
      points.map((p) => [String(p.attributes['gen_ai.tool.name']), p]),
    );
    // An open code is `_OTHER` on the metric (bounded cardinality); baseline codes are kept.
    expect(byTool.down?.attributes).toEqual({
      'gen_ai.tool.name': 'down',
      'mcp.tool.call.outcome': 'retries_exhausted',
      'mcp.tool.failure.class': 'reliability',
      'mcp.tool.failure.code': '_OTHER',
    });
    expect(byTool.down?.value).toBe(1);
    expect(byTool.denied?.attributes).toMatchObject({ 'mcp.tool.failure.code': 'auth_required' });
    expect(byTool.denied?.value).toBe(0);
    await pair.close();
  });

  /**
   * withToolRetry, with `options`, this test's meter provider and an in-memory log exporter,
   * over a pair whose tool `hang` answers after 1 s.
   */
  async function hangingWithLogs(
    options: Pick<ToolRetryPolicy, 'exceptionSignal' | 'maxFailureLogsPerSecond'>,
  ) {
    const logExporter = new InMemoryLogRecordExporter();
    const loggerProvider = new LoggerProvider({
      processors: [new SimpleLogRecordProcessor({ exporter: logExporter })],
    });
    const pair = await v1Pair({
      hang: { script: () => new Promise((r) => setTimeout(() => r({ content: [] }), 1_000)) },
    });
    const client = withToolRetry(pair.client, {
      meterProvider: meters.provider,
      loggerProvider,
      ...options,
    });
    return { logExporter, loggerProvider, pair, client };
  }

  for (const exceptionSignal of ['logs', 'logs/dup'] as const) {
    it(`a thrown error ends the span with outcome error, the exception in a log record (${exceptionSignal})`, async () => {
      const { logExporter, loggerProvider, pair, client } = await hangingWithLogs({
        exceptionSignal,
      });
      await expect(
        drive(client.callTool({ name: 'hang' }, undefined, { timeout: 100 })),
      ).rejects.toMatchObject({ code: -32001 });
      const span = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call hang');
      expect(span?.attributes).toMatchObject({
        'mcp.tool.call.attempts': 1,
        'mcp.tool.call.outcome': 'error',
        // The one error.type rule: the same value the attempt's client span carries.
        'error.type': 'timeout',
      });
      expect(span?.status.code).toBe(2);
      expect(span?.events.map((e) => e.name)).toEqual(
        exceptionSignal === 'logs/dup' ? ['exception'] : [],
      );
      const [record, ...others] = logExporter.getFinishedLogRecords();
      expect(others).toEqual([]);
      expect(record?.severityText).toBe('WARN');
      expect(record?.spanContext?.spanId).toBe(span?.spanContext().spanId);
      expect(record?.attributes).toMatchObject({
        'gen_ai.tool.name': 'hang',
        'exception.type': 'McpError',
        'exception.message': expect.stringContaining('timed out'),
        'exception.stacktrace': expect.stringContaining('McpError'),
      });
      await pair.close();
      await loggerProvider.shutdown();
    });
  }

  it('keeps those log records under a budget per tool and exception type, and says how many it left out', async () => {
    // The budget refills by `performance.now()` (the global `performance`, read at each take).
    // Only that clock is faked here: the SDK's request timeouts run on real timers, and budget
    // time passes only when the test advances it, however long the calls take.
    vi.useFakeTimers({ toFake: ['performance'] });
    const { logExporter, loggerProvider, pair, client } = await hangingWithLogs({
      maxFailureLogsPerSecond: 2,
    });
    const timedOut = () =>
      expect(client.callTool({ name: 'hang' }, undefined, { timeout: 20 })).rejects.toMatchObject({
        code: -32001,
      });
    for (let i = 0; i < 5; i++) await timedOut();
    expect(logExporter.getFinishedLogRecords()).toHaveLength(2);
    // Every logical call still has its span with the outcome.
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'mcp.tool.call hang');
    expect(spans.map((s) => s.attributes['mcp.tool.call.outcome'])).toEqual(Array(5).fill('error'));
    // Half a second refills one token: the next record says three were left out.
    vi.advanceTimersByTime(500);
    await timedOut();
    const records = logExporter.getFinishedLogRecords();
    expect(records).toHaveLength(3);
    expect(records[2]?.attributes['mcp.tool.failure.suppressed_records']).toBe(3);
    expect(records[0]?.attributes['mcp.tool.failure.suppressed_records']).toBeUndefined();
    await pair.close();
    await loggerProvider.shutdown();
  });

  it('records budget_exhausted and aborted outcomes', async () => {
    const pair = await v1Pair({
      later: {
        annotations: { idempotentHint: true },
        script: () => fail(transient({ retryNotBefore: Date.now() + 60_000 })),
      },
    });
    const client = withToolRetry(pair.client, {
      maxElapsedMs: 10_000,
      meterProvider: meters.provider,
    });
    await client.callToolWithRetry({ name: 'later' });
    const patient = withToolRetry(pair.client, {
      maxElapsedMs: 120_000,
      meterProvider: meters.provider,
    });
    const controller = new AbortController();
    const pending = patient.callTool({ name: 'later' }, undefined, { signal: controller.signal });
    pending.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const outcomes = exporter
      .getFinishedSpans()
      .filter((s) => s.name === 'mcp.tool.call later')
      .map((s) => [s.attributes['mcp.tool.call.outcome'], s.attributes['error.type']]);
    expect(outcomes).toEqual([
      ['budget_exhausted', 'tool_error'],
      ['aborted', 'cancelled'],
    ]);
    await pair.close();
  });
});
