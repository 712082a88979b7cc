/**
 * Each span once, with a framework that owns the process's exit (issue 40): a Mastra
 * `MCPClient` (@mastra/mcp 2.0.0, @mastra/core 1.71.0, from test/fixtures/mastra/ in a real
 * install with this package's packed tarball) calls tools over stdio under the register entry,
 * then `await mcp.disconnect()` and ends by itself. Mastra's exit hook (exit-hook's
 * asyncExitHook) calls `process.exit()` at `beforeExit`, in the middle of the entry's flush; a
 * receiver that counts span IDs sees each span of both processes once.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtimes } from '../helpers/runtimes.js';
import { runApp, useFrameworkProject } from './helpers-b.js';

const TOOLS = [
  'billing_find_customer',
  'billing_refund_invoice',
  'ledger_refund_invoice',
  'billing_lookup_invoice',
];
const CLIENT = 3;
const SERVER = 2;
const runtime = runtimes().filter((r) => r.major >= 22)[0]!;

const setup = useFrameworkProject('mastra', runtime);

describe(`a Mastra MCPClient application on Node.js ${runtime.major}`, () => {
  const service = 'mastra-exit';
  let code: number | null;
  let stderr: string;

  beforeAll(async () => {
    const result = await runApp(runtime, setup.project, 'mastra-app.mjs', TOOLS, {
      CALLS_FILE: join(setup.project, 'calls-mastra-exit.jsonl'),
      TRACED_TRACEPARENT: `00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01`,
      OTEL_SERVICE_NAME: service,
      OTEL_EXPORTER_OTLP_ENDPOINT: setup.receiver.url,
    });
    code = result.code;
    stderr = result.stderr;
    // Whatever arrives after the end arrives within a moment (the servers' last exports).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }, 240_000);

  it('ends by itself with exit code 0', () => {
    expect(code, stderr).toBe(0);
  });

  it('exports every tool call’s client and server span, each span ID once', () => {
    const spans = setup.receiver.spans.filter((s) => s.serviceName === service);
    const ids = spans.map((s) => s.spanId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const tool of ['find_customer', 'refund_invoice', 'lookup_invoice']) {
      const calls = spans.filter((s) => s.name === `tools/call ${tool}`);
      expect(calls.filter((s) => s.kind === CLIENT).length, tool).toBeGreaterThan(0);
      expect(calls.filter((s) => s.kind === SERVER).length, tool).toBeGreaterThan(0);
    }
  });

  it('says nothing about telemetry not delivered', () => {
    expect(stderr).not.toMatch(/telemetry (dropped|flush stopped)|not sent at exit/);
  });
});
