// tier: timed (a retried call through the proxy executable waits out the retry schedule)
import { fileURLToPath } from 'node:url';
import { SpanKind } from '@opentelemetry/api';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withToolRetry } from '../../../src/retry/index.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { Client } from '../../../test/helpers/mcp-v1.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';
import { binPath } from '../../../scripts/workspace.mjs';

const t = setupTelemetry();
const root = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = binPath('mcp-failure-proxy');
const FIXTURE = 'packages/proxy/test/fixtures/flaky-server.mjs';

function telemetryEnv(receiver: OtlpReceiver): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    ...env,
    OTEL_SERVICE_NAME: 'mcp-failure-proxy',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
}

/** The proxy CLI as a child on stdio, in front of `upstream` (a command line). */
function proxyTransport(env: Record<string, string>, upstream: string[], extra: string[] = []) {
  return new StdioClientTransport({
    command: process.execPath,
    args: [
      CLI,
      '--stdio',
      '--timeout',
      '5000',
      '--connect-timeout',
      '5000',
      ...extra,
      '--',
      ...upstream,
    ],
    cwd: root,
    env,
    stderr: 'pipe',
  });
}

describe('mcp-failure-proxy CLI (child processes on stdio)', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });
  beforeEach(() => t.reset());

  it('client with withToolRetry → proxy → flaky server: one trace, 3 attempts, correlationIds = that trace ID, proxy spans in it', async () => {
    const transport = proxyTransport(telemetryEnv(receiver), [
      '/usr/bin/env',
      'OTEL_SERVICE_NAME=flaky-upstream',
      process.execPath,
      '--import',
      '@omcp/instrumentation-mcp/register',
      FIXTURE,
    ]);
    const seen: Array<string | undefined> = [];
    const client = withToolRetry(new Client({ name: 'e2e', version: '1' }), {
      backoff: { initialDelayMs: 1, maxDelayMs: 5 },
      retryBudget: false,
      onRetry: (info) => seen.push(info.failure.correlationId),
    });
    await client.connect(transport);
    try {
      t.reset();
      const r = await client.callTool({ name: 'flaky', arguments: {} });
      expect(r.isError).toBeUndefined();
      expect(r.content).toEqual([{ type: 'text', text: 'ok after 3 calls' }]);
    } finally {
      await client.close();
    }
    const logical = t.finished().find((s) => s.name === 'mcp.tool.call flaky')!;
    const traceId = logical.spanContext().traceId;
    const attempts = t
      .finished()
      .filter((s) => s.name === 'tools/call flaky' && s.kind === SpanKind.CLIENT);
    expect(attempts.map((s) => s.attributes['mcp.tool.call.attempt']).sort()).toEqual([1, 2, 3]);
    for (const a of attempts) {
      expect(a.spanContext().traceId).toBe(traceId);
      expect(a.parentSpanContext?.spanId).toBe(logical.spanContext().spanId);
    }
    expect(seen).toEqual([traceId, traceId]);

    const named = (service: string, kind: number) =>
      receiver.spans.filter(
        (s) =>
          s.traceId === traceId &&
          s.serviceName === service &&
          s.name === 'tools/call flaky' &&
          s.kind === kind,
      );
    await receiver.waitFor(
      () => named('flaky-upstream', 2).length === 3 && named('mcp-failure-proxy', 3).length === 3,
      10_000,
    );
    const proxyServers = named('mcp-failure-proxy', 2);
    const proxyClients = named('mcp-failure-proxy', 3);
    const upstreamServers = named('flaky-upstream', 2);
    expect(proxyServers).toHaveLength(3);
    const attemptIds = new Set(attempts.map((a) => a.spanContext().spanId));
    for (const s of proxyServers) expect(attemptIds).toContain(s.parentSpanId);
    const proxyServerIds = new Set(proxyServers.map((s) => s.spanId));
    for (const c of proxyClients) expect(proxyServerIds).toContain(c.parentSpanId);
    const proxyClientIds = new Set(proxyClients.map((s) => s.spanId));
    for (const u of upstreamServers) expect(proxyClientIds).toContain(u.parentSpanId);
    const failed = upstreamServers.filter(
      (u) => u.attributes['mcp.tool.failure.correlation_id'] !== undefined,
    );
    expect(failed.map((u) => u.attributes['mcp.tool.failure.correlation_id'])).toEqual([
      traceId,
      traceId,
    ]);
  });

  const plainEnv = (): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('OTEL_')) env[k] = v;
    return env;
  };

  it.each([
    ['spawn fails', ['/nonexistent/mcp-server'], 'upstream_unavailable'],
    ['crash mid-call', [process.execPath, FIXTURE, 'crash'], 'upstream_unavailable'],
    ['garbage on stdout', [process.execPath, FIXTURE, 'garbage'], 'malformed_response'],
  ])('%s: the caller gets a clear failure, not the timeout', async (_name, upstream, code) => {
    const client = new Client({ name: 'down', version: '1' });
    await client.connect(proxyTransport(plainEnv(), upstream));
    try {
      // The code says which path answered: the proxy's own timeout would give `timeout`.
      const r = await client.callTool({ name: 'flaky', arguments: {} });
      expect(r.isError).toBe(true);
      expect(r._meta?.[KEY]).toMatchObject({
        class: 'reliability',
        code,
        correlationId: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
    } finally {
      await client.close();
    }
  });

  /** Runs the CLI to its end; `input` is written to its stdin, which is then closed. */
  async function runCli(
    args: string[],
    input?: string,
    stdout: 'pipe' | number = 'pipe',
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { spawn } = await import('node:child_process');
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: root,
        stdio: ['pipe', stdout, 'pipe'],
        env: plainEnv(),
      });
      let out = '';
      let err = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      child.stdin?.on('error', () => {}); // the proxy may stop reading before all is written
      child.on('close', (code) => resolve({ code, stdout: out, stderr: err }));
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  it.each([
    ['no downstream chosen', ['--stdio']],
    [
      'a timeout beyond what a Node timer can wait',
      ['--stdio', '--timeout', '3000000000', '--', 'x'],
    ],
    ['a connect timeout of 0', ['--stdio', '--connect-timeout', '0', '--', 'x']],
    ['a flag value that starts with a dash', ['--stdio', '--timeout', '-1', '--', 'x']],
  ])('usage error (%s): exit 2 with one line', async (_name, args) => {
    const out = await runCli(args, '');
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n'), out.stderr).toHaveLength(1);
    expect(out.stderr).toMatch(/^mcp-failure-proxy: .+ \(see --help\)\n$/);
  });

  it('a client message beyond the read buffer: one line and exit 1, not a proxy waiting for good', async () => {
    const out = await runCli(
      ['--stdio', '--', process.execPath, FIXTURE],
      `${'x'.repeat(11 * 1024 * 1024)}\n`,
    );
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      'mcp-failure-proxy: the client connection failed: ReadBuffer exceeded maximum size of 10485760 bytes\n',
    );
  });

  it('output it cannot write (a full disk) is one line and exit 1, not a stack trace', async () => {
    const { openSync, closeSync } = await import('node:fs');
    const full = openSync('/dev/full', 'w');
    try {
      const out = await runCli(['--help'], '', full);
      expect(out.code).toBe(1);
      expect(out.stderr).toBe('mcp-failure-proxy: cannot write the output: ENOSPC\n');
    } finally {
      closeSync(full);
    }
  });
});
