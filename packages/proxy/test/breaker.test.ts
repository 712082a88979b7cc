/**
 * The proxy's circuit breaker (`circuitBreaker`, `--circuit-breaker`): one circuit per upstream
 * tool in the upstream's one engine, shared by every downstream caller. The numbers measured
 * here are quoted in docs/proxy.md, "Circuit breaking".
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { parseProxyArgs } from '../src/args.js';
import { setupTracing } from '../../../test/helpers/otel.js';
import { drive, useFakeTime } from '../../../test/retry/fake-time.js';
import { scriptedUpstream, throughProxy } from './harness.js';

const { exporter } = setupTracing();

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
const okResult = { content: [{ type: 'text', text: 'ok' }] };

function upstream(healthy: () => boolean = () => false): ReturnType<typeof scriptedUpstream> {
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
      : { result: healthy() ? okResult : failing },
  );
}

const upstreamCalls = (up: ReturnType<typeof scriptedUpstream>): number =>
  up.requests.filter((r) => r.method === 'tools/call').length;

type Meta = Record<string, Record<string, unknown>>;

describe('proxy circuit breaker', () => {
  beforeEach(() => {
    exporter.reset();
    useFakeTime();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('default thresholds: 60 calls, one a second, of an always-failing tool make 10 upstream calls', async () => {
    const up = upstream();
    const { client, close } = await throughProxy({ upstream: up.factory, circuitBreaker: true });
    try {
      const codes: string[] = [];
      for (let second = 0; second < 60; second++) {
        const r = await client.callTool({ name: 'flaky', arguments: {} });
        expect(r.isError).toBe(true);
        codes.push(String((r._meta as Meta)[KEY]?.code));
        await vi.advanceTimersByTimeAsync(1000);
      }
      // 5 failures open it at t=4 s; then one probe each time it half-opens (t=14, 24, ... 54 s).
      expect(upstreamCalls(up)).toBe(10);
      expect(codes.filter((c) => c === 'circuit_open')).toHaveLength(50);
    } finally {
      await close();
    }
  });

  it("the open circuit's answer: reliability/circuit_open, retryable, not before the half-open time, the proxy span's trace ID", async () => {
    const up = upstream();
    const { client, close } = await throughProxy({
      upstream: up.factory,
      circuitBreaker: { failureThreshold: 2, openMs: 5000 },
    });
    try {
      await client.callTool({ name: 'flaky', arguments: {} });
      await client.callTool({ name: 'flaky', arguments: {} });
      const openedAt = Date.now();
      exporter.reset();
      const r = await client.callTool({ name: 'flaky', arguments: {} });
      expect(upstreamCalls(up)).toBe(2);
      const span = exporter.getFinishedSpans().find((s) => s.name === 'mcp.tool.call flaky')!;
      expect(r.isError).toBe(true);
      expect((r._meta as Meta)[KEY]).toEqual({
        class: 'reliability',
        code: 'circuit_open',
        retryable: true,
        retryNotBefore: openedAt + 5000,
        correlationId: span.spanContext().traceId,
        agentGuidance: expect.any(String),
      });
    } finally {
      await close();
    }
  });

  it('with --retry: 10 calls of an always-failing idempotent tool make 5 upstream calls (13 without)', async () => {
    const up = upstream();
    const { client, close } = await throughProxy({
      upstream: up.factory,
      retry: { backoff: { initialDelayMs: 1, maxDelayMs: 1 } },
      circuitBreaker: true,
    });
    try {
      await client.listTools();
      for (let i = 0; i < 10; i++) {
        const r = await drive(client.callTool({ name: 'flaky', arguments: {} }));
        expect(r.isError).toBe(true);
      }
      // Call 1: 3 attempts; call 2: 2 (the 5th failure opens it, and the budget is spent);
      // calls 3-10 are answered by the open circuit.
      expect(upstreamCalls(up)).toBe(5);
    } finally {
      await close();
    }
  });

  it('recovers: the probe after openMs succeeds, and calls are relayed again', async () => {
    let healthy = false;
    const up = upstream(() => healthy);
    const { client, close } = await throughProxy({
      upstream: up.factory,
      circuitBreaker: { failureThreshold: 3, openMs: 2000 },
    });
    try {
      for (let i = 0; i < 6; i++) await client.callTool({ name: 'flaky', arguments: {} });
      expect(upstreamCalls(up)).toBe(3);
      healthy = true;
      await vi.advanceTimersByTimeAsync(2000);
      for (let i = 0; i < 4; i++) {
        const r = await client.callTool({ name: 'flaky', arguments: {} });
        expect(r).toEqual(okResult);
      }
      expect(upstreamCalls(up)).toBe(7);
    } finally {
      await close();
    }
  });

  it('transport errors count: an upstream that keeps dropping the call opens it', async () => {
    // Circuits are kept for listed tools only (packages/proxy/test/attacks.test.ts): the upstream lists it.
    const up = scriptedUpstream((method) =>
      method === 'tools/call'
        ? 'close'
        : { result: { tools: [{ name: 'flaky', inputSchema: { type: 'object' } }] } },
    );
    const { client, close } = await throughProxy({
      upstream: up.factory,
      circuitBreaker: { failureThreshold: 2 },
    });
    try {
      const codes: unknown[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await drive(client.callTool({ name: 'flaky', arguments: {} }));
        codes.push((r._meta as Meta)[KEY]?.code);
      }
      expect(codes).toEqual([
        'upstream_unavailable',
        'upstream_unavailable',
        'circuit_open',
        'circuit_open',
      ]);
      expect(upstreamCalls(up)).toBe(2);
    } finally {
      await close();
    }
  });

  it('capability failures never open it', async () => {
    const up = scriptedUpstream((method) =>
      method === 'tools/call'
        ? {
            result: {
              isError: true,
              content: [],
              _meta: { [KEY]: { class: 'capability', code: 'invalid_input', correlationId: 'c' } },
            },
          }
        : { result: {} },
    );
    const { client, close } = await throughProxy({
      upstream: up.factory,
      circuitBreaker: { failureThreshold: 1 },
    });
    try {
      for (let i = 0; i < 5; i++) await client.callTool({ name: 'x', arguments: {} });
      expect(upstreamCalls(up)).toBe(5);
    } finally {
      await close();
    }
  });

  it('the CLI: --circuit-breaker with --circuit-failures and --circuit-open-ms; thresholds need it', () => {
    const base = ['--stdio', '--', 'node', 'server.mjs'];
    expect(parseProxyArgs(base)).toMatchObject({ circuitBreaker: false });
    expect(parseProxyArgs(['--circuit-breaker', ...base])).toMatchObject({ circuitBreaker: {} });
    expect(
      parseProxyArgs([
        '--circuit-breaker',
        '--circuit-failures',
        '3',
        '--circuit-open-ms',
        '2500',
        ...base,
      ]),
    ).toMatchObject({ circuitBreaker: { failureThreshold: 3, openMs: 2500 } });
    expect(() => parseProxyArgs(['--circuit-failures', '3', ...base])).toThrow(
      /--circuit-failures needs --circuit-breaker/,
    );
    expect(() => parseProxyArgs(['--circuit-breaker', '--circuit-failures', '0', ...base])).toThrow(
      /--circuit-failures expects a whole number/,
    );
  });
});
