// `npm run demo`: the runnable prototype of the tool-failure proposal.
//
//   agent (this package's retry policy, dispatch on class)
//     -> mcp-failure-proxy (relays _meta unchanged)
//       -> demo MCP server (zero-code instrumentation; every baseline failure code)
//
// With no OTEL_EXPORTER_OTLP_ENDPOINT set, telemetry goes to an embedded receiver that writes
// .omcp/demo/telemetry.jsonl, and the demo checks every correlationId against the server's
// spans there. With it set (e.g. after `docker compose up -d`), telemetry goes to your stack.
// OMCP_DEMO_DIR puts the telemetry and results files elsewhere (the tests use a temporary
// directory, so a test run never replaces the file a printed lookup command points at).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startReceiver } from './receiver.mjs';
import { formatTable } from './table.mjs';
import { binPath } from '../scripts/workspace.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = (line = '') => process.stdout.write(`${line}\n`);
const fail = (message) => {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(2);
};

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      load: { type: 'boolean', default: false },
      rate: { type: 'string', default: '10' },
      duration: { type: 'string', default: '60' },
      mix: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  fail(`${error.message.split('\n')[0]} (npm run demo -- --help)`);
}
if (options.help) {
  out('Usage: npm run demo [-- --load [--rate N] [--duration SECONDS] [--mix tool1,tool2]]');
  out('  default   one call per demo tool, a table, and a check of every correlationId');
  out('  --load    calls at --rate per second for --duration seconds, failure mix from --mix');
  process.exit(0);
}
for (const [name, value] of [
  ['rate', options.rate],
  ['duration', options.duration],
]) {
  if (!(Number(value) > 0)) fail(`--${name} must be a positive number (got ${value})`);
}
if (!existsSync(binPath('mcp-failure-proxy'))) fail('the package is not built: run npm run build');

const external = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
const outDir = resolve(root, process.env.OMCP_DEMO_DIR || join('.omcp', 'demo'));
const telemetryFile = join(outDir, 'telemetry.jsonl');
const resultsFile = join(outDir, 'results.json');
// As `npm run mcp-failures` (run from the package root) reads it: relative inside, else absolute.
const shownTelemetryFile = (() => {
  const path = relative(root, telemetryFile);
  return path.startsWith('..') || isAbsolute(path) ? telemetryFile : path;
})();
mkdirSync(outDir, { recursive: true });
const receiver = external === undefined ? await startReceiver(telemetryFile) : undefined;
const env = {
  ...process.env,
  OTEL_SERVICE_NAME: 'omcp-demo-agent',
  OTEL_BSP_SCHEDULE_DELAY: '500',
  OTEL_METRIC_EXPORT_INTERVAL: '5000',
  DEMO_RESULTS: resultsFile,
  DEMO_LOAD: options.load ? '1' : '0',
  DEMO_RATE: options.rate,
  DEMO_DURATION: options.duration,
  ...(options.mix === undefined ? {} : { DEMO_MIX: options.mix }),
  ...(receiver === undefined
    ? {}
    : { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
};

out(
  `MCP tool-failure demo: agent -> mcp-failure-proxy -> server (telemetry: ${receiver === undefined ? external : shownTelemetryFile})`,
);
out();
const code = await new Promise((resolve) => {
  const child = spawn(
    process.execPath,
    ['--import', '@omcp/instrumentation-mcp/register', 'demo/agent.mjs'],
    { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  child.on('exit', (c, signal) => resolve(c ?? (signal === null ? 1 : 128)));
});
if (code !== 0) fail(`the agent exited with code ${code}`);
const rows = JSON.parse(readFileSync(resultsFile, 'utf8'));

// Every correlationId should be the trace ID of the server span that failed.
let spans = [];
if (receiver !== undefined) {
  const { parseOtlpJson } = await import('../packages/mcp-failures/dist/esm/lookup/otlp.js');
  const wanted = rows.filter((r) => r.correlationId !== undefined);
  const deadline = Date.now() + 15_000;
  for (;;) {
    spans = parseOtlpJson(readFileSync(telemetryFile, 'utf8'));
    const serverSpans = spans.filter(
      (s) => s.kind === 'SERVER' && s.service === 'omcp-demo-server',
    );
    if (
      wanted.every((r) => serverSpans.some((s) => s.traceId === r.correlationId)) ||
      Date.now() > deadline
    )
      break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await receiver.close();
}
const serverSpanFor = (row) =>
  spans.find(
    (s) =>
      s.kind === 'SERVER' &&
      s.service === 'omcp-demo-server' &&
      s.name === `tools/call ${row.tool}` &&
      s.traceId === row.correlationId,
  );

if (!options.load) {
  out();
  const serverSpan = receiver === undefined ? undefined : (r) => serverSpanFor(r) !== undefined;
  for (const line of formatTable(rows, { serverSpan })) out(line);
  out();
}

const checks = [];
const byTool = Object.fromEntries(rows.map((r) => [r.tool, r]));
if (!options.load) {
  const classes = new Set(rows.map((r) => r.class).filter(Boolean));
  checks.push([
    'every class shown (capability, reliability, governance)',
    ['capability', 'reliability', 'governance'].every((c) => classes.has(c)),
  ]);
  checks.push([
    'weather_lookup retried after retryNotBefore, then succeeded',
    byTool.weather_lookup?.outcome === 'success' &&
      byTool.weather_lookup.attempts === 3 &&
      byTool.weather_lookup.class === 'reliability',
  ]);
  checks.push([
    'send_email (not idempotent) was not retried',
    byTool.send_email?.attempts === 1 && byTool.send_email.stopReason === 'not_idempotent',
  ]);
  checks.push([
    'no capability or governance failure was retried',
    rows
      .filter((r) => r.class === 'capability' || r.class === 'governance')
      .every((r) => r.attempts === 1),
  ]);
}
if (receiver !== undefined) {
  const withId = rows.filter((r) => r.correlationId !== undefined);
  const matched = withId.filter((r) => serverSpanFor(r) !== undefined);
  checks.push([
    `every correlationId is the trace ID of its server span (${matched.length}/${withId.length})`,
    withId.length > 0 && matched.length === withId.length,
  ]);
  checks.push([
    'every correlationId is also the agent task trace ID',
    withId.every((r) => r.correlationId === r.traceId),
  ]);
}
if (options.load) {
  const failed = rows.filter((r) => r.outcome !== 'success').length;
  out(`load: ${rows.length} logical calls, ${failed} ended in a failure`);
}
for (const [name, ok] of checks) out(`${ok ? 'ok  ' : 'FAIL'}  ${name}`);
const sample = rows.find((r) => r.correlationId !== undefined);
if (receiver !== undefined && sample !== undefined) {
  out();
  out(
    `Look one up:  npm run mcp-failures -- lookup ${sample.correlationId} --file ${shownTelemetryFile}`,
  );
} else if (sample !== undefined) {
  out();
  out(
    `Look one up:  npm run mcp-failures -- lookup ${sample.correlationId} --jaeger-url http://localhost:16686`,
  );
  out(`Jaeger:       http://localhost:16686/trace/${sample.correlationId}`);
  out('Grafana:      http://localhost:3000/d/mcp-tool-failures');
}
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
