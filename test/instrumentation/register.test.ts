import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a fixture app under the zero-code entry; `onOutput` may signal it. Never hangs: killed after 20 s. */
function run(
  args: string[],
  env: Record<string, string>,
  onOutput?: (text: string, pid: number) => void,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onOutput?.(stdout, child.pid!);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('zero-code register entry', () => {
  let receiver: OtlpReceiver;
  const env = (): Record<string, string> => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRIC_EXPORT_INTERVAL: '60000',
    OTEL_BSP_SCHEDULE_DELAY: '60000',
  });
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  /** The last reported value of a failure counter of `service` for `tool` (cumulative sums). */
  const failuresOf = (service: string, metric: string, tool: string): number | undefined => {
    let last: number | undefined;
    for (const raw of receiver.metricBodies) {
      const body = JSON.parse(raw) as {
        resourceMetrics?: Array<{
          resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
          scopeMetrics?: Array<{
            metrics?: Array<{
              name: string;
              sum?: {
                dataPoints?: Array<{
                  asInt?: string | number;
                  attributes?: Array<{ key: string; value: { stringValue?: string } }>;
                }>;
              };
            }>;
          }>;
        }>;
      };
      for (const rm of body.resourceMetrics ?? []) {
        const name = rm.resource?.attributes?.find((a) => a.key === 'service.name')?.value
          .stringValue;
        if (name !== service) continue;
        for (const sm of rm.scopeMetrics ?? [])
          for (const m of sm.metrics ?? [])
            if (m.name === metric)
              for (const p of m.sum?.dataPoints ?? [])
                if (
                  p.attributes?.some(
                    (a) => a.key === 'gen_ai.tool.name' && a.value.stringValue === tool,
                  )
                )
                  last = Number(p.asInt);
      }
    }
    return last;
  };

  afterAll(async () => {
    await receiver.close();
  });

  it('ES module app with --import: spans, metrics and logs are flushed when the process ends normally', async () => {
    const before = receiver.spans.length;
    const r = await run(
      ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/inmemory-app.mjs'],
      { ...env(), OTEL_SERVICE_NAME: 'esm-app' },
    );
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout.split('\n')[0]!) as {
      result: { _meta: Record<string, { correlationId: string }> };
    };
    const correlationId = result.result._meta['io.modelcontextprotocol/toolFailure']!.correlationId;
    const mine = receiver.spans.slice(before).filter((s) => s.serviceName === 'esm-app');
    expect(mine.filter((s) => s.name === 'tools/call boom').map((s) => s.traceId)).toEqual([
      correlationId,
      correlationId,
    ]);
    expect(receiver.logs.some((l) => l.traceId === correlationId)).toBe(true);
    // The failure counters are asynchronous: the exit flush still reports the failure, once a side.
    expect(failuresOf('esm-app', 'mcp.server.tool.failures', 'boom')).toBe(1);
    expect(failuresOf('esm-app', 'mcp.client.tool.failures', 'boom')).toBe(1);
  });

  it('CommonJS app with --require, ended by SIGTERM: telemetry is flushed, then the process ends by the signal', async () => {
    const before = receiver.spans.length;
    const r = await run(
      ['--require', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/inmemory-app.cjs'],
      { ...env(), OTEL_SERVICE_NAME: 'cjs-app', FIXTURE_WAIT: '1' },
      (out, pid) => {
        if (out.includes('waiting')) process.kill(pid, 'SIGTERM');
      },
    );
    expect(r.signal).toBe('SIGTERM');
    const mine = receiver.spans
      .slice(before)
      .filter((s) => s.serviceName === 'cjs-app' && s.name === 'tools/call boom');
    expect(mine.map((s) => s.kind).sort()).toEqual([2, 3]);
  });

  it('an unreachable collector does not break or hold up the app', async () => {
    const r = await run(
      ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/inmemory-app.mjs'],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        OTEL_EXPORTER_OTLP_TIMEOUT: '500',
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"isError":true');
  });

  it('bad configuration gets a one-line warning and the defaults', async () => {
    const r = await run(
      ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/inmemory-app.mjs'],
      {
        ...env(),
        OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT: 'maybe',
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      '@omcp/instrumentation-mcp: OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT=maybe is not true or false; using the default',
    );
    expect(r.stdout).toContain('io.modelcontextprotocol/toolFailure');
  });

  it("--require beside a module.register() (Sentry's init makes one): the SDK starts once, not again on Node's loader thread", async () => {
    // Node runs --require preloads again on the loader thread that module.register() starts.
    const hook =
      'data:text/javascript,export async function resolve(s, c, next) { return next(s, c); }';
    const registers = `data:text/javascript,import { register } from 'node:module'; register(${JSON.stringify(hook)});`;
    const r = await run(
      [
        '--require',
        '@omcp/instrumentation-mcp/register',
        '--import',
        registers,
        'test/fixtures/apps/inmemory-app.cjs',
      ],
      { ...env(), OTEL_SERVICE_NAME: 'loader-thread' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('io.modelcontextprotocol/toolFailure');
    expect(r.stderr.match(/register: OpenTelemetry JS \S+ started/g), r.stderr).toHaveLength(1);
  });

  it('OTEL_SDK_DISABLED=true leaves the app untouched', async () => {
    const r = await run(
      ['--import', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/inmemory-app.mjs'],
      { ...env(), OTEL_SDK_DISABLED: 'true' },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('io.modelcontextprotocol/toolFailure');
  });
});
