import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  ensureGateTools,
  inspectorBin,
  node22,
  root,
  run,
  startExampleServer,
  type Finished,
} from './gate-tools.js';

const META_KEY = 'io.modelcontextprotocol/toolFailure';

interface CallToolOutput {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  _meta?: Record<string, { class: string; code: string; correlationId: string }>;
}

/** The MCP Inspector's CLI mode (Node 22), with its catalog kept out of the user's home. */
function inspector(args: string[], home: string): Promise<Finished> {
  return run(node22, [inspectorBin, '--cli', ...args], {
    env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
    timeoutMs: 60_000,
  });
}

/** The CLI prints the CallToolResult as JSON on stdout; an isError result exits with code 5. */
function parseResult(r: Finished): CallToolOutput {
  expect(r.code, `inspector: ${r.stderr}`).toBe(5);
  expect(r.stderr).toContain('tool_is_error');
  return JSON.parse(r.stdout) as CallToolOutput;
}

describe('MCP Inspector CLI against the example server, instrumented with zero code', () => {
  let receiver: OtlpReceiver;
  let home: string;
  const otel = (service: string): Record<string, string> => ({
    OTEL_SERVICE_NAME: service,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  });

  beforeAll(async () => {
    await ensureGateTools();
    receiver = await startOtlpReceiver();
    home = mkdtempSync(join(tmpdir(), 'omcp-inspector-'));
  }, 300_000);
  afterAll(async () => {
    await receiver?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  /** Waits for the server span of `tool` whose trace ID is `traceId`. */
  async function serverSpanWithTrace(service: string, tool: string, traceId: string) {
    await receiver.waitFor(
      (spans) =>
        spans.some(
          (s) =>
            s.serviceName === service &&
            s.kind === 2 &&
            s.name === `tools/call ${tool}` &&
            s.traceId === traceId,
        ),
      10_000,
    );
    return receiver.spans.find(
      (s) => s.serviceName === service && s.name === `tools/call ${tool}` && s.traceId === traceId,
    );
  }

  it('over Streamable HTTP: the failure object carries a correlationId equal to the server trace ID', async () => {
    const server = await startExampleServer(
      ['--import', '@omcp/instrumentation-mcp/register'],
      otel('inspector-http'),
    );
    try {
      const r = await inspector(
        [server.url, '--method', 'tools/call', '--tool-name', 'read_calendar'],
        home,
      );
      const result = parseResult(r);
      const failure = result._meta?.[META_KEY];
      expect(result.isError).toBe(true);
      expect(failure).toMatchObject({ class: 'governance', code: 'auth_required' });
      expect(failure?.correlationId).toMatch(/^[0-9a-f]{32}$/);
      const span = await serverSpanWithTrace(
        'inspector-http',
        'read_calendar',
        failure!.correlationId,
      );
      expect(span?.attributes['mcp.tool.failure.class']).toBe('governance');
      expect(span?.attributes['mcp.tool.failure.correlation_id']).toBe(failure!.correlationId);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('over stdio: a thrown error is classified, and its correlationId is the server trace ID', async () => {
    const env = Object.entries(otel('inspector-stdio')).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const r = await inspector(
      [
        ...env,
        '--cwd',
        root,
        '--method',
        'tools/call',
        '--tool-name',
        'lookup_booking',
        '--',
        process.execPath,
        '--import',
        '@omcp/instrumentation-mcp/register',
        'examples/high-level-server/server.mjs',
        '--stdio',
      ],
      home,
    );
    const result = parseResult(r);
    const failure = result._meta?.[META_KEY];
    expect(failure).toMatchObject({ class: 'reliability', code: 'retryable_transient_error' });
    expect(failure?.correlationId).toMatch(/^[0-9a-f]{32}$/);
    const span = await serverSpanWithTrace(
      'inspector-stdio',
      'lookup_booking',
      failure!.correlationId,
    );
    expect(span?.attributes['mcp.tool.failure.source']).toBe('instrumentation');
  }, 120_000);
});
