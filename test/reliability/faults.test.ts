import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SpanKind } from '@opentelemetry/api';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toolCallReportOf, withToolRetry, type GiveUpInfo } from '../../src/retry/index.js';
import {
  TOOL_FAILURE_META_KEY as KEY,
  toolFailure,
  type ToolFailure,
} from '../../packages/tool-failure/src/index.js';
import { connectPair, Client, InMemoryTransport, McpServer } from '../helpers/mcp-v1.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { throughProxy } from '../../packages/proxy/test/harness.js';

const t = setupTelemetry();
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Rejects if `promise` has not settled within `ms` (a hang guard, not a timing assertion). */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no settlement within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a promise settled, without throwing. */
async function settle<T>(
  promise: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Active timers (`Timeout` resources) after the event loop has turned a few times. */
async function activeTimeouts(): Promise<number> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/**
 * The number of active timers once they are down to `before`, or after 3 s: a timer another part
 * of the process set a moment ago (an exporter, the test runner) is gone by then, a leaked one
 * (a request timeout never cleared, a backoff sleep) is not.
 */
async function timeoutsSettledTo(before: number): Promise<number> {
  const deadline = Date.now() + 3_000;
  let now = await activeTimeouts();
  while (now > before && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    now = await activeTimeouts();
  }
  return now;
}

/** Resolves once `pid` no longer exists (SIGKILL after `ms` as a last resort). */
async function gone(pid: number, ms = 20_000): Promise<void> {
  const alive = (): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + ms;
  while (alive()) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      throw new Error(`process ${pid} still alive after ${ms} ms; killed`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * `Protocol.request` of SDK 1.x adds one 'abort' listener to the caller's signal per request
 * and never removes it (it goes with the signal). Listeners beyond that would be ours.
 */
const SDK_LISTENERS_PER_REQUEST = 1;

const failureOf = (r: { _meta?: Record<string, unknown> }): ToolFailure | undefined =>
  r._meta?.[KEY] as ToolFailure | undefined;

// ---------------------------------------------------------------------------------------------
// (1) Collector down / slow, zero-code child app
// ---------------------------------------------------------------------------------------------

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the fault app under `--import register`; killed (and reported) after 60 s. */
function runApp(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/fault-app.mjs'],
      {
        cwd: root,
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_METRIC_EXPORT_INTERVAL: '60000',
          OTEL_BSP_SCHEDULE_DELAY: '60000',
          ...env,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('collector down or slow: a zero-code instrumented app is unaffected', () => {
  let receiver: OtlpReceiver;
  let baseline: Run;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    baseline = await runApp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  }, 90_000);
  afterAll(async () => {
    await receiver.close();
  });

  it('baseline (collector up): the calls complete, telemetry arrives, exit 0', async () => {
    expect(baseline.code).toBe(0);
    expect(baseline.signal).toBeNull();
    const lines = baseline.stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe('done');
    // The instrumentation is active in the child: it added failure objects.
    expect(lines[1]).toContain('"class":"reliability"');
    expect(lines[2]).toContain('"code":"permission_denied"');
    expect(lines[4]).toContain('"code":"capability_unsupported"');
    await receiver.waitFor((spans) => spans.some((s) => s.name === 'tools/call boom'));
  });

  it('collector down (closed 127.0.0.1 port): same results, normal exit', async () => {
    const r = await runApp({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
    });
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
    expect(r.stdout).toBe(baseline.stdout);
  }, 90_000);

  it('collector slow (answers after 3 s): same results, normal exit, telemetry still delivered', async () => {
    const pending = new Set<NodeJS.Timeout>();
    let received = 0;
    const slow = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/v1/traces') received += 1;
        const timer = setTimeout(() => {
          pending.delete(timer);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        }, 3_000);
        pending.add(timer);
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const { port } = slow.address() as AddressInfo;
      const r = await runApp({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
      expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
      expect(r.stdout).toBe(baseline.stdout);
      expect(received).toBeGreaterThan(0);
    } finally {
      for (const timer of pending) clearTimeout(timer);
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  }, 90_000);
});

// ---------------------------------------------------------------------------------------------
// (2) Upstream server crash mid-call
// ---------------------------------------------------------------------------------------------

/** A stdio transport to the hang server; `started` resolves when its tool call began. */
function hangServer(): { transport: StdioClientTransport; started: Promise<void> } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['test/fixtures/apps/hang-server.mjs'],
    cwd: root,
    stderr: 'pipe',
  });
  const started = new Promise<void>((resolve) => {
    let text = '';
    transport.stderr?.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('hang started')) resolve();
    });
  });
  return { transport, started };
}

describe('upstream crash mid-call: the call settles, nothing hangs or leaks', () => {
  beforeEach(() => t.reset());

  it('direct: stdio child SIGKILLed during tools/call → JSON-RPC error ConnectionClosed', async () => {
    const timersBefore = await activeTimeouts();
    const { transport, started } = hangServer();
    const client = new Client({ name: 'crash-client', version: '1' });
    await within(20_000, 'connect', client.connect(transport));
    const pid = transport.pid!;
    try {
      const call = settle(client.callTool({ name: 'hang', arguments: {} }));
      await within(20_000, 'hang started', started);
      process.kill(pid, 'SIGKILL');
      const outcome = await within(20_000, 'call after crash', call);
      expect(outcome.ok).toBe(false);
      expect((outcome as { error: unknown }).error).toBeInstanceOf(McpError);
      expect((outcome as { error: McpError }).error.code).toBe(-32000);
      const span = t
        .finished()
        .find((s) => s.name === 'tools/call hang' && s.kind === SpanKind.CLIENT);
      expect(span?.attributes['error.type']).toBeDefined();
    } finally {
      await client.close();
      await gone(pid);
    }
    expect(await timeoutsSettledTo(timersBefore)).toBeLessThanOrEqual(timersBefore);
  }, 60_000);

  it('through the proxy: stdio upstream SIGKILLed during tools/call → reliability / upstream_unavailable', async () => {
    const timersBefore = await activeTimeouts();
    const children: Array<ReturnType<typeof hangServer>> = [];
    const p = await within(
      20_000,
      'proxy',
      throughProxy({
        upstream: () => {
          const child = hangServer();
          children.push(child);
          return child.transport;
        },
      }),
    );
    const pids: number[] = [];
    try {
      const call = settle(p.client.callTool({ name: 'hang', arguments: {} }));
      await within(20_000, 'hang started', children[0]!.started);
      pids.push(children[0]!.transport.pid!);
      process.kill(pids[0]!, 'SIGKILL');
      const outcome = await within(20_000, 'call after crash', call);
      expect(outcome.ok).toBe(true);
      const r = (outcome as { value: { _meta?: Record<string, unknown>; isError?: boolean } })
        .value;
      expect(r.isError).toBe(true);
      expect(failureOf(r)).toMatchObject({
        class: 'reliability',
        code: 'upstream_unavailable',
        retryable: false,
      });
    } finally {
      await p.close();
      for (const c of children) if (c.transport.pid !== null) pids.push(c.transport.pid);
      await Promise.all(pids.map((pid) => gone(pid)));
    }
    expect(await timeoutsSettledTo(timersBefore)).toBeLessThanOrEqual(timersBefore);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// (3) Transport closed during a retry wait, (4) abort during backoff
// ---------------------------------------------------------------------------------------------

/** An upstream whose idempotent tool fails retryably, asking for a wait of `waitMs`. */
function retryingServer(waitMs: number): McpServer {
  const server = new McpServer({ name: 'retry-upstream', version: '1' });
  server.registerTool('flaky', { annotations: { idempotentHint: true } }, async () =>
    toolFailure({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: Date.now() + waitMs,
      message: 'try again later',
    }),
  );
  return server;
}

/**
 * withToolRetry over a pair with retryingServer(60 s): `waiting` settles when the first retry is
 * scheduled, `gaveUp` collects what onGiveUp gets.
 */
async function retryingClient() {
  const pair = await connectPair(retryingServer(60_000));
  let scheduled!: () => void;
  const waiting = new Promise<void>((r) => (scheduled = r));
  const gaveUp: GiveUpInfo[] = [];
  const client = withToolRetry(pair.client, {
    maxElapsedMs: 120_000,
    retryBudget: false,
    onRetry: () => scheduled(),
    onGiveUp: (info) => gaveUp.push(info),
  });
  return { pair, client, waiting, gaveUp };
}

describe('retry waits end with the connection or the caller', () => {
  it('transport closed while withToolRetry waits for retryNotBefore (60 s): settles at once with ConnectionClosed', async () => {
    const timersBefore = await activeTimeouts();
    const { pair, client, waiting, gaveUp } = await retryingClient();
    const signal = new AbortController().signal;
    const call = settle(
      client.callTool({ name: 'flaky', arguments: {} }, undefined, { signal, timeout: 60_000 }),
    );
    await within(20_000, 'retry scheduled', waiting);
    await pair.client.close();
    // The 60 s wait is far beyond this guard: settling inside it is the point.
    const outcome = await within(20_000, 'call after close', call);
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: { code?: unknown } }).error.code).toBe(-32000);
    expect(gaveUp).toMatchObject([{ outcome: 'error', attempts: 1 }]);
    await pair.server.close();
    // withToolRetry gives each attempt a child of the caller's signal and unlinks it when the
    // attempt ends, so not even the SDK's per-request listener stays on the caller's signal.
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    expect(await timeoutsSettledTo(timersBefore)).toBeLessThanOrEqual(timersBefore);
  }, 60_000);

  it('abort during backoff: rejects at once with the abort reason; no timer or listener left', async () => {
    const timersBefore = await activeTimeouts();
    const { pair, client, waiting, gaveUp } = await retryingClient();
    const controller = new AbortController();
    const call = settle(
      client.callTool({ name: 'flaky', arguments: {} }, undefined, {
        signal: controller.signal,
        timeout: 60_000,
      }),
    );
    await within(20_000, 'retry scheduled', waiting);
    const reason = new Error('user gave up');
    controller.abort(reason);
    const outcome = await within(20_000, 'call after abort', call);
    expect(outcome).toEqual({ ok: false, error: reason });
    expect(gaveUp).toMatchObject([{ outcome: 'aborted', attempts: 1 }]);
    await pair.close();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(await timeoutsSettledTo(timersBefore)).toBeLessThanOrEqual(timersBefore);
  }, 60_000);

  it('a successful retried call: the backoff wait leaves no listener on its signal', async () => {
    let calls = 0;
    const server = new McpServer({ name: 'once-flaky', version: '1' });
    server.registerTool('flaky', { annotations: { idempotentHint: true } }, async () => {
      calls += 1;
      if (calls === 1)
        return toolFailure({
          class: 'reliability',
          code: 'retryable_transient_error',
          retryable: true,
          message: 'once',
        });
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    const pair = await connectPair(server);
    const client = withToolRetry(pair.client, {
      retryBudget: false,
      backoff: { initialDelayMs: 1, jitter: 'none' },
    });
    const controller = new AbortController();
    const r = await within(
      20_000,
      'retried call',
      client.callTool({ name: 'flaky', arguments: {} }, undefined, { signal: controller.signal }),
    );
    expect(toolCallReportOf(r)).toMatchObject({ outcome: 'success', attempts: 2 });
    await pair.close();
    // Two attempts and a backoff wait: each unlinked its own listener when it ended.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// (5) A tool that never answers
// ---------------------------------------------------------------------------------------------

function silentServer(): McpServer {
  const server = new McpServer({ name: 'silent', version: '1' });
  server.registerTool('never', {}, () => new Promise(() => {}));
  return server;
}

describe('a tool that never answers', () => {
  beforeEach(() => t.reset());

  it('direct: the client timeout settles it; the client span has error.type=timeout', async () => {
    const timersBefore = await activeTimeouts();
    const pair = await connectPair(silentServer());
    const controller = new AbortController();
    const outcome = await within(
      20_000,
      'timed-out call',
      settle(
        pair.client.callTool({ name: 'never', arguments: {} }, undefined, {
          timeout: 300,
          signal: controller.signal,
        }),
      ),
    );
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: McpError }).error.code).toBe(-32001);
    const span = t
      .finished()
      .find((s) => s.name === 'tools/call never' && s.kind === SpanKind.CLIENT);
    expect(span?.attributes['error.type']).toBe('timeout');
    await pair.close();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(SDK_LISTENERS_PER_REQUEST);
    expect(await timeoutsSettledTo(timersBefore)).toBeLessThanOrEqual(timersBefore);
  }, 60_000);

  it('through the proxy: reliability / timeout failure object, and the proxy span says so', async () => {
    const timersBefore = await activeTimeouts();
    const upstreams: McpServer[] = [];
    const p = await throughProxy({
      timeoutMs: 300,
      upstream: async () => {
        const [proxySide, upstreamSide] = InMemoryTransport.createLinkedPair();
        const server = silentServer();
        upstreams.push(server);
        await server.connect(upstreamSide);
        return proxySide;
      },
    });
    const controller = new AbortController();
    try {
      const r = await within(
        20_000,
        'proxied call',
        p.client.callTool({ name: 'never', arguments: {} }, undefined, {
          timeout: 60_000,
          signal: controller.signal,
        }),
      );
      expect(r.isError).toBe(true);
      expect(failureOf(r)).toMatchObject({ class: 'reliability', code: 'timeout' });
      const spans = t.finished().filter((s) => s.name === 'tools/call never');
      // The proxy's upstream CLIENT span timed out; the agent's CLIENT span got a failure.
      expect(
        spans.some((s) => s.kind === SpanKind.CLIENT && s.attributes['error.type'] === 'timeout'),
      ).toBe(true);
      expect(
        spans.some(
          (s) =>
            s.kind === SpanKind.CLIENT &&
            s.attributes['mcp.tool.failure.code'] === 'timeout' &&
            s.attributes['error.type'] === 'tool_error',
        ),
      ).toBe(true);
    } finally {
      await p.close();
      await Promise.all(upstreams.map((s) => s.close()));
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(SDK_LISTENERS_PER_REQUEST);
    expect(await timeoutsSettledTo(timersBefore)).toBeLessThanOrEqual(timersBefore);
  }, 60_000);
});
