/**
 * The sources the coexistence test writes into its project: an application with an MCP SDK 1.x
 * server and client on Streamable HTTP (loopback), so the server's parent can only come from
 * `params._meta`; Sentry's `init` with a transport that keeps its envelopes in memory; and a
 * NodeSDK setup with this package and Traceloop's instrumentation in either order.
 *
 * The app prints one line per fact: `AGENT <traceId> <spanId>` (the caller's span around
 * everything), `RESULT <tool> <json>` (what the client got), `META <tool> <json>` (the
 * `params._meta` the tool saw). The Sentry setup prints `SENTRY <json>` per span it would send.
 */
import { NAME } from './install.js';

/** The application body, the same text for both module systems. */
const body = `
  const tracer = trace.getTracer('coexist-app');
  const metas = {};
  const http = createServer((req, res) => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('ok', {}, async (...args) => {
      metas.ok = args[args.length - 1]._meta ?? null;
      return { content: [{ type: 'text', text: 'fine' }] };
    });
    server.registerTool('boom', {}, async (...args) => {
      metas.boom = args[args.length - 1]._meta ?? null;
      throw new Error('boom');
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  if (process.env.TRACELOOP_MANUAL === '1') {
    // Traceloop's advice for ES modules; with a NodeSDK, the instance registered there.
    const traceloop = globalThis.__traceloop ?? new (require('@traceloop/instrumentation-mcp').McpInstrumentation)();
    traceloop.manuallyInstrument({ Client });
  }
  const agent = tracer.startSpan('agent');
  console.log('AGENT ' + agent.spanContext().traceId + ' ' + agent.spanContext().spanId);
  await context.with(trace.setSpan(context.active(), agent), async () => {
    const client = new Client({ name: 'c', version: '1' });
    const url = new URL('http://127.0.0.1:' + http.address().port + '/');
    await client.connect(new StreamableHTTPClientTransport(url));
    for (const name of ['ok', 'boom']) {
      const result = await client.callTool({ name, arguments: {} });
      console.log('RESULT ' + name + ' ' + JSON.stringify(result));
      console.log('META ' + name + ' ' + JSON.stringify(metas[name]));
    }
    await client.close();
  });
  agent.end();
  http.closeAllConnections();
  http.close();
`;

const esmImports = `import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { context, trace } from '@opentelemetry/api';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
const require = createRequire(import.meta.url);
`;

const cjsImports = `const { createServer } = require('node:http');
const { context, trace } = require('@opentelemetry/api');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
`;

/** Sentry's init as its docs have it (an ES module, for either app), with a transport that records instead of sending. */
const sentryInit = `
const envelopes = [];
Sentry.init({
  dsn: 'http://public@127.0.0.1:9/1',
  tracesSampleRate: 1,
  transport: (options) =>
    Sentry.createTransport(options, async (request) => {
      envelopes.push(request.body);
      return { statusCode: 200 };
    }),
});
process.once('beforeExit', async () => {
  await Sentry.flush(5000);
  for (const envelope of envelopes) {
    const text = typeof envelope === 'string' ? envelope : Buffer.from(envelope).toString('utf8');
    for (const line of text.split('\\n')) {
      let item;
      try { item = JSON.parse(line); } catch { continue; }
      for (const span of Array.isArray(item.items) ? item.items : []) {
        console.log('SENTRY ' + JSON.stringify({
          name: span.name,
          traceId: span.trace_id,
          op: span.attributes?.['sentry.op']?.value,
        }));
      }
    }
  }
});
`;

/** NodeSDK with this package and Traceloop's; `COEXIST_ORDER` picks the order, `none` leaves Traceloop out. */
const nodeSdk = `
const ours = new McpInstrumentation();
const traceloop = new TraceloopInstrumentation();
const order = process.env.COEXIST_ORDER;
const instrumentations = order === 'traceloop-first' ? [traceloop, ours] : order === 'ours-first' ? [ours, traceloop] : [ours];
if (order !== 'none') globalThis.__traceloop = traceloop;
const sdk = new NodeSDK({ instrumentations });
sdk.start();
process.once('beforeExit', () => sdk.shutdown());
`;

/** Every file of the coexistence project. */
export const COEXIST_FILES: Record<string, string> = {
  'app.mjs': `${esmImports}${body}`,
  'app.cjs': `${cjsImports}(async () => {${body}})();\n`,
  'sentry.mjs': `import * as Sentry from '@sentry/node';\n${sentryInit}`,
  'sdk.mjs': `import { register, createRequire } from 'node:module';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { McpInstrumentation } from '${NAME}';
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
const { McpInstrumentation: TraceloopInstrumentation } = createRequire(import.meta.url)('@traceloop/instrumentation-mcp');
${nodeSdk}`,
  'sdk.cjs': `const { NodeSDK } = require('@opentelemetry/sdk-node');
const { McpInstrumentation } = require('${NAME}');
const { McpInstrumentation: TraceloopInstrumentation } = require('@traceloop/instrumentation-mcp');
${nodeSdk}`,
};

/** One line of the app's output, parsed. */
export interface AppOutput {
  agent: { traceId: string; spanId: string };
  results: Record<string, unknown>;
  metas: Record<string, Record<string, unknown> | null>;
  sentry: Array<{ name: string; traceId: string; op: string | undefined }>;
}

/** Reads what the app and the Sentry setup printed. */
export function parseOutput(stdout: string): AppOutput {
  const out: AppOutput = { agent: { traceId: '', spanId: '' }, results: {}, metas: {}, sentry: [] };
  for (const line of stdout.split('\n')) {
    const [tag, a, b] = line.split(' ');
    if (tag === 'AGENT') out.agent = { traceId: a ?? '', spanId: b ?? '' };
    else if (tag === 'RESULT' && a !== undefined)
      out.results[a] = JSON.parse(line.slice(8 + a.length));
    else if (tag === 'META' && a !== undefined)
      out.metas[a] = JSON.parse(line.slice(6 + a.length)) as Record<string, unknown> | null;
    else if (tag === 'SENTRY') out.sentry.push(JSON.parse(line.slice(7)) as AppOutput['sentry'][0]);
  }
  return out;
}
