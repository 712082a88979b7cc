/**
 * Both OpenTelemetry JS lines with sdk-node, the way users install them: the 2.x line (api 1.9,
 * sdk-node 0.223) on Node.js 20, the 3.x line (api 1.10, sdk-node 0.301) on Node.js 22, 24 and 26.
 * For each, a fresh project installs the application's OpenTelemetry packages and the MCP SDK with
 * that Node's npm, then adds the packed tarball (the grid's cells, shared with lines-grid.test.ts,
 * which covers the design card's stack, the other orders and pnpm). ES module and CommonJS apps run under a NodeSDK setup file and
 * under the zero-code entry, exporting over OTLP/HTTP to a receiver on 127.0.0.1: spans, metrics
 * and the failure log record arrive, and the log record's trace ID is the `correlationId` the
 * client received.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import type { Runtime } from '../helpers/runtimes.js';
import { NO_ESM_HOOK_WARNING } from '../../src/shared/esm-hook.js';
import { SCHEMA_URL } from '../../src/semconv.js';
import { failingCallCommonJs, failingCallModule } from './apps.js';
import { cellProject, STACKS } from './cells.js';
import { NAME, copiesOf, node, pack, type Packed } from './install.js';

/** The sdk-node stack of each Node.js line: 3.x needs Node.js >= 22.15. */
const CELLS = [
  { node: 20, line: '2.x', stack: 'sdk-node 2.x' },
  { node: 22, line: '3.x', stack: 'sdk-node 3.x' },
  { node: 24, line: '3.x', stack: 'sdk-node 3.x' },
  { node: 26, line: '3.x', stack: 'sdk-node 3.x' },
] as const;

const APPS = {
  'app.mjs': failingCallModule('boom', 'boom'),
  'app.cjs': failingCallCommonJs('boom', 'boom'),
  // The README's setup, for each module system.
  'telemetry.mjs': `import { register } from 'node:module';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { McpInstrumentation } from '${NAME}';
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
const sdk = new NodeSDK({ instrumentations: [new McpInstrumentation()] });
sdk.start();
process.once('beforeExit', () => sdk.shutdown());
`,
  'plain.mjs': `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
console.log(typeof Client);
`,
  // The same setup with warnings shown, without and with the loader hook.
  'nohook.mjs': `import { diag, DiagConsoleLogger, DiagLogLevel } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { McpInstrumentation } from '${NAME}';
diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
if (process.env.WITH_HOOK) (await import('node:module')).register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
const sdk = new NodeSDK({ instrumentations: [new McpInstrumentation()] });
sdk.start();
process.once('beforeExit', () => sdk.shutdown());
`,
  'telemetry.cjs': `const { NodeSDK } = require('@opentelemetry/sdk-node');
const { McpInstrumentation } = require('${NAME}');
const sdk = new NodeSDK({ instrumentations: [new McpInstrumentation()] });
sdk.start();
process.once('beforeExit', () => sdk.shutdown());
`,
};

const QUIET = {
  OTEL_TRACES_EXPORTER: 'console',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
};

const RUNS = [
  { setup: 'NodeSDK', app: 'app.mjs', args: ['--import', './telemetry.mjs', 'app.mjs'] },
  { setup: 'NodeSDK', app: 'app.cjs', args: ['--require', './telemetry.cjs', 'app.cjs'] },
  { setup: 'zero-code', app: 'app.mjs', args: ['--import', `${NAME}/register`, 'app.mjs'] },
  { setup: 'zero-code', app: 'app.cjs', args: ['--require', `${NAME}/register`, 'app.cjs'] },
] as const;

let packed: Packed;
let receiver: OtlpReceiver | undefined;

beforeAll(() => {
  packed = pack();
});

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe.each(CELLS)('Node.js $node', ({ node: major, line, stack }) => {
  let project: string;
  let runtime: Runtime;

  beforeAll(async () => {
    ({ dir: project, runtime } = await cellProject(
      { node: major, stack, pm: 'npm', order: 'after' },
      packed,
    ));
    for (const [file, text] of Object.entries(APPS)) writeFileSync(join(project, file), text);
  }, 400_000);

  it(`shares the application's @opentelemetry/api (OpenTelemetry JS ${line})`, () => {
    const api = copiesOf(project, '@opentelemetry/api');
    expect(api.map((c) => c.version)).toEqual([STACKS[stack][0].split('@')[2]]);
    // This package's @opentelemetry/instrumentation is 0.223 on both lines (its peer takes api
    // 1.9 and 1.10): one copy on 2.x; on 3.x beside sdk-node's 0.301.
    const instrumentation = copiesOf(project, '@opentelemetry/instrumentation');
    expect(instrumentation.map((c) => c.version).sort()).toEqual(
      line === '2.x' ? ['0.223.0'] : ['0.223.0', '0.301.0'],
    );
    // The API is never a private copy of this package's own, nor on 2.x its logs API.
    const own = join(project, 'node_modules', NAME, 'node_modules');
    const shared =
      line === '2.x' ? ['@opentelemetry/api', '@opentelemetry/api-logs'] : ['@opentelemetry/api'];
    for (const name of shared)
      expect(copiesOf(project, name).filter((c) => c.path.startsWith(own))).toEqual([]);
  });

  it('an ES module app without the loader hook is told once what to add', async () => {
    const without = await node(runtime, project, ['--import', './nohook.mjs', 'plain.mjs'], QUIET);
    expect(without.code, without.stderr).toBe(0);
    expect(without.stderr.split(NO_ESM_HOOK_WARNING).length - 1, without.stderr).toBe(1);
    const withHook = await node(runtime, project, ['--import', './nohook.mjs', 'plain.mjs'], {
      ...QUIET,
      WITH_HOOK: '1',
    });
    expect(withHook.code, withHook.stderr).toBe(0);
    expect(withHook.stderr).not.toContain(NO_ESM_HOOK_WARNING);
  });

  it.each(RUNS)(
    `OpenTelemetry JS ${line}, $setup setup, $app: spans, metrics and the failure log record arrive`,
    async ({ setup, args }) => {
      receiver = await startOtlpReceiver();
      const result = await node(runtime, project, args, {
        OTEL_SERVICE_NAME: 'pack-lines',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_LOGS_EXPORTER: 'otlp',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
      });
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      const id = /correlationId=([0-9a-f]{32})/.exec(result.stdout)?.[1];
      expect(id, result.stdout).toBeDefined();
      if (setup === 'zero-code')
        expect(result.stderr).toContain(`${NAME}/register: OpenTelemetry JS ${line} started (`);

      const r = receiver;
      await r.waitFor((spans) => spans.some((s) => s.name === 'tools/call boom' && s.kind === 2));
      const calls = r.spans.filter((s) => s.name === 'tools/call boom');
      expect(calls.map((s) => s.kind).sort()).toEqual([2, 3]);
      for (const span of calls) expect(span.traceId).toBe(id);
      expect(r.traceBodies.join('')).toContain(`"schemaUrl":"${SCHEMA_URL}"`);

      const metrics = r.metricBodies.join('');
      expect(metrics).toContain('"mcp.server.operation.duration"');
      expect(metrics).toContain('"mcp.server.tool.failures"');

      const record = r.logs.find((l) => l.traceId === id);
      expect(record, JSON.stringify(r.logs)).toBeDefined();
      expect(record!.attributes['exception.type']).toBe('Error');
      expect(record!.attributes['mcp.tool.failure.correlation_id']).toBe(id);
    },
    60_000,
  );
});
