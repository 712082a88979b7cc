// The demo's agent: an MCP client that calls every demo tool through the relaying proxy, with
// the retry policy of this package, and dispatches on the failure class as an agent would.
// Started by demo/index.mjs under `--import @omcp/instrumentation-mcp/register`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { context, trace } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { withToolRetry } from '@omcp/instrumentation-mcp/retry';
import { binPath } from '../scripts/workspace.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const proxyCli = binPath('mcp-failure-proxy');
const node = process.execPath;
const register = '@omcp/instrumentation-mcp/register';

export const SCENARIOS = [
  { tool: 'weather_lookup', args: { city: 'Lisbon' }, note: 'read-only, idempotent, transient' },
  { tool: 'send_email', args: { to: 'ana@example.com' }, note: 'not idempotent, transient' },
  { tool: 'calendar_events', args: {}, note: 'needs sign-in' },
  { tool: 'delete_repository', args: { name: 'infra' }, note: 'upstream 403' },
  { tool: 'export_customer_data', args: {}, note: 'policy' },
  { tool: 'book_flight', args: { flight: 'TP123' }, note: 'user must confirm' },
  { tool: 'render_video', args: {}, note: 'unsupported' },
  { tool: 'create_invoice', args: { amount: 'twelve', currency: 'EUR' }, note: 'bad arguments' },
  { tool: 'read_document', args: { id: 'q3-report' }, note: 'upstream 404' },
  { tool: 'summarize_notes', args: {}, note: 'bug in the tool' },
];

/** What an agent does with the outcome of one logical call. */
export function agentAction(report) {
  if (report.outcome === 'success')
    return report.attempts > 1 ? 'retried, then used the result' : 'used the result';
  const d = report.decision;
  if (d?.action === 'out_of_band') return 'asked the user to act';
  if (d?.action === 'surface') return 'tried another approach';
  if (d?.action === 'stop' && d.reason === 'not_idempotent')
    return 'asked the user before resending';
  if (d?.action === 'stop') return `stopped (${d.reason})`;
  return 'stopped';
}

function connect() {
  const transport = new StdioClientTransport({
    command: node,
    args: [
      '--import',
      register,
      proxyCli,
      '--stdio',
      '--',
      'env',
      'OTEL_SERVICE_NAME=omcp-demo-server',
      node,
      '--import',
      register,
      'demo/server.mjs',
    ],
    cwd: root,
    env: { ...process.env, OTEL_SERVICE_NAME: 'omcp-demo-proxy' },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'omcp-demo-agent', version: '1.0.0' });
  return client.connect(transport).then(() => client);
}

// The failure behind the last retry of each task, so a call that succeeded in the end still
// shows what it recovered from.
const retried = new Map();

async function callOnce(retrying, tracer, scenario) {
  return tracer.startActiveSpan(`agent task ${scenario.tool}`, async (span) => {
    const traceId = span.spanContext().traceId;
    try {
      const report = await retrying.callToolWithRetry({
        name: scenario.tool,
        arguments: scenario.args,
      });
      const recovered = report.outcome === 'success' ? retried.get(traceId) : undefined;
      retried.delete(traceId);
      return {
        tool: scenario.tool,
        note: scenario.note,
        traceId,
        outcome: report.outcome,
        attempts: report.attempts,
        class: report.failure?.class ?? report.decision?.failure?.class ?? recovered?.class,
        code: report.failure?.code ?? report.decision?.failure?.code ?? recovered?.code,
        agentGuidance: report.failure?.agentGuidance,
        correlationId:
          report.failure?.correlationId ??
          report.decision?.failure?.correlationId ??
          recovered?.correlationId,
        stopReason: report.decision?.action === 'stop' ? report.decision.reason : undefined,
        action: agentAction(report),
      };
    } catch (error) {
      return {
        tool: scenario.tool,
        note: scenario.note,
        traceId,
        outcome: 'error',
        attempts: 1,
        action: `error: ${error.message}`,
      };
    } finally {
      span.end();
    }
  });
}

async function main() {
  const tracer = trace.getTracer('omcp-demo-agent');
  const client = await connect();
  const retrying = withToolRetry(client, {
    maxAttempts: 4,
    maxElapsedMs: 10_000,
    backoff: { initialDelayMs: 50, maxDelayMs: 500, multiplier: 2, jitter: 'full' },
    onRetry: (info) => {
      const traceId = trace.getActiveSpan()?.spanContext().traceId;
      if (traceId !== undefined) retried.set(traceId, info.failure);
      if (process.env.DEMO_LOAD !== '1') {
        process.stdout.write(
          `  ${info.toolName.padEnd(22)} ${info.failure.class}/${info.failure.code}: retry ${info.attempt + 1} in ${info.delayMs} ms (${info.delaySource})\n`,
        );
      }
    },
  });
  await retrying.listTools();
  const load = process.env.DEMO_LOAD === '1';
  const rows = [];
  if (!load) {
    for (const scenario of SCENARIOS) {
      const row = await callOnce(retrying, tracer, scenario);
      rows.push(row);
      process.stdout.write(`  ${row.tool.padEnd(22)} ${row.action}\n`);
    }
  } else {
    const rate = Number(process.env.DEMO_RATE ?? 10);
    const durationMs = Number(process.env.DEMO_DURATION ?? 60) * 1000;
    const mix = (process.env.DEMO_MIX ?? SCENARIOS.map((s) => s.tool).join(',')).split(',');
    const pool = SCENARIOS.filter((s) => mix.includes(s.tool));
    const start = Date.now();
    const pending = new Set();
    let sent = 0;
    let lastReport = start;
    while (Date.now() - start < durationMs) {
      const scenario = pool[sent % pool.length];
      sent++;
      const p = context
        .with(context.active(), () => callOnce(retrying, tracer, scenario))
        .then((row) => {
          rows.push(row);
          pending.delete(p);
        });
      pending.add(p);
      await new Promise((r) => setTimeout(r, 1000 / rate));
      if (Date.now() - lastReport >= 5000) {
        lastReport = Date.now();
        const s = Math.round((Date.now() - start) / 1000);
        process.stdout.write(
          `  load: ${s}s / ${durationMs / 1000}s, ${sent} calls sent, ${rows.length} done, ${rows.filter((r) => r.outcome !== 'success').length} failed\n`,
        );
      }
    }
    await Promise.all(pending);
  }
  await client.close();
  writeFileSync(process.env.DEMO_RESULTS, JSON.stringify(rows));
}

await main();
