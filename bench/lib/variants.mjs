// The instrumentation variants. Each benchmark process installs exactly one of them, since
// prototype patches are global to a process.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  createNoopMeter,
  propagation,
  trace,
} from '@opentelemetry/api';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { missionFloor } from './mission-floor.mjs';

export const VARIANTS = [
  'baseline',
  'floor',
  'mission-floor',
  'mission-floor-tap',
  'omcp',
  'omcp-client',
  'omcp-client-spans',
  'omcp-noobjects',
  'autotel',
  'traceloop',
];

/**
 * The variants of the Streamable HTTP scenario, which runs SDK 2.x (its 2026-07-28 stateless
 * mode); the peers instrument SDK 1.x only.
 */
export const HTTP_VARIANTS = ['baseline', 'floor', 'mission-floor', 'omcp'];

/**
 * The paired rows (on demand): each runs its variant on another build of this package, the
 * `dist/` directory named by BENCH_BEFORE_DIST, against the same SDK, peers and floor.
 */
export const BEFORE = { 'omcp-before': 'omcp', 'omcp-client-before': 'omcp-client' };

/** What each variant is expected to produce per tool call. */
export const EXPECTED = {
  baseline: 'none',
  floor: 'client+server',
  'mission-floor': 'client+server',
  'mission-floor-tap': 'client+server',
  omcp: 'client+server',
  'omcp-client': 'client only',
  'omcp-nologs': 'client+server',
  'omcp-noobjects': 'client+server',
  'omcp-alllogs': 'client+server',
  'omcp-allstacks': 'client+server',
  'omcp-client-spans': 'client only',
  'omcp-before': 'client+server',
  'omcp-client-before': 'client only',
  autotel: 'client+server',
  traceloop: 'client+server',
};

/**
 * This package in manual mode on one in-memory pair (`instrumentClient` / `instrumentServer` on
 * its own objects), as the in-process section and the attribution profile run it.
 */
export function manualVariant(Instrumentation, config) {
  const instrumentation = new Instrumentation(config);
  return {
    client: (c) => instrumentation.instrumentClient(c),
    server: (s) => instrumentation.instrumentServer(s),
    tool: (_n, cb) => cb,
  };
}

/** Where `name`'s package directory resolves from `from`, as Node would look it up. */
function packageDir(from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Why the BENCH_BEFORE_DIST build cannot be paired with this one, in one line, or undefined.
 * Both must run on the same dependency files: a second copy of the API in the process would
 * cost the before rows alone (more code to keep warm), and make them look slower.
 */
export function beforeProblem() {
  const dist = process.env.BENCH_BEFORE_DIST;
  if (dist === undefined || dist === '')
    return `the ${Object.keys(BEFORE).join(' and ')} rows need BENCH_BEFORE_DIST, the dist/ directory of the build to compare with (e.g. BENCH_BEFORE_DIST=/tmp/omcp-before/dist)`;
  if (!existsSync(join(dist, 'esm', 'index.js')))
    return `BENCH_BEFORE_DIST=${dist} has no esm/index.js: point it at a built dist/ directory`;
  const here = dirname(fileURLToPath(import.meta.url));
  for (const name of [
    '@opentelemetry/api',
    '@opentelemetry/instrumentation',
    'require-in-the-middle',
    '@modelcontextprotocol/sdk',
  ]) {
    const theirs = packageDir(resolve(dist), name);
    const ours = packageDir(here, name);
    if (theirs !== ours)
      return `BENCH_BEFORE_DIST=${dist} resolves ${name} to ${theirs ?? 'nothing'}, the bench to ${ours}: link that build's node_modules to this tree's (ln -s) so only the package differs`;
  }
  return undefined;
}

let peers;
async function peer() {
  peers ??= await import('../peers/load.mjs');
  return peers;
}

/**
 * Installs process-wide parts of a variant (prototype patches) and returns how to wrap a
 * client and a server of that variant.
 */
export async function installVariant(name, build) {
  if (name in BEFORE) {
    const problem = beforeProblem();
    if (problem !== undefined) throw new Error(problem);
    const url = pathToFileURL(join(process.env.BENCH_BEFORE_DIST, 'esm', 'index.js'));
    return installVariant(BEFORE[name], await import(url.href));
  }
  // Loaded here, not at the top, so that a process of a paired row loads only the other build.
  const { McpInstrumentation } = build ?? (await import('../../dist/esm/index.js'));
  switch (name) {
    case 'baseline':
      return { client: (c) => c, server: (s) => s, tool: (_n, cb) => cb };
    case 'floor':
      return floor();
    case 'mission-floor':
      return missionFloor();
    case 'mission-floor-tap':
      // The mission floor with its server span at the transport, as this package's is.
      return missionFloor({ at: 'transport' });
    case 'omcp': {
      // Auto mode: the same prototype patches the module hooks apply, on the SDK loaded here.
      const instrumentation = new McpInstrumentation();
      instrumentation._patchLoaded({ v1Protocol, v1Mcp, v2: [v2Server, v2Client] });
      return { client: (c) => c, server: (s) => s, tool: (_n, cb) => cb, instrumentation };
    }
    case 'omcp-nologs':
    case 'omcp-noobjects':
    case 'omcp-alllogs':
    case 'omcp-allstacks': {
      // What the failing path's optional parts cost (run on demand, see docs/performance.md):
      // without the failure log record (the exception then goes to a span event), without
      // the failure objects the server instrumentation adds to error results, with a log record
      // for every failure (no log budget), or a record with its stack for every failure (no
      // budgets at all).
      const instrumentation = new McpInstrumentation(
        {
          'omcp-nologs': { emitFailureLogs: false },
          'omcp-noobjects': { addFailureObjects: false },
          'omcp-alllogs': { maxFailureLogsPerSecond: Infinity },
          'omcp-allstacks': {
            maxFailureLogsPerSecond: Infinity,
            maxStackTracesPerSecond: Infinity,
          },
        }[name],
      );
      instrumentation._patchLoaded({ v1Protocol, v1Mcp, v2: [v2Server, v2Client] });
      return { client: (c) => c, server: (s) => s, tool: (_n, cb) => cb, instrumentation };
    }
    case 'omcp-client': {
      // The like-for-like row for a peer that traces the client only: this package on the
      // client object alone (manual mode), the server left uninstrumented. Metrics on.
      const instrumentation = new McpInstrumentation();
      return {
        client: (c) => instrumentation.instrumentClient(c),
        server: (s) => s,
        tool: (_n, cb) => cb,
        instrumentation,
      };
    }
    case 'omcp-client-spans': {
      // The same output as a peer that traces the client only and records no metrics: client
      // spans alone, no trace context sent, no metrics.
      const instrumentation = new McpInstrumentation({ propagateContext: false });
      instrumentation.setMeterProvider({ getMeter: () => createNoopMeter() });
      return {
        client: (c) => instrumentation.instrumentClient(c),
        server: (s) => s,
        tool: (_n, cb) => cb,
        instrumentation,
      };
    }
    case 'autotel': {
      // autotel's docs call init() first; it would start its own NodeSDK and exporters, so the
      // shared SDK registered in otel.mjs stands in for it (autotel takes the global tracer).
      const { instrumentMcpClient, instrumentMcpServer } = await (await peer()).loadAutotel();
      return {
        client: (c) => instrumentMcpClient(c, { networkTransport: 'pipe' }),
        server: (s) => instrumentMcpServer(s, { networkTransport: 'pipe' }),
        tool: (_n, cb) => cb,
      };
    }
    case 'traceloop': {
      // Traceloop's README: auto mode does not fire for SDK 1.x; manuallyInstrument({ Client }).
      const { McpInstrumentation: Traceloop } = (await peer()).loadTraceloop();
      const t = new Traceloop();
      t.manuallyInstrument({ Client });
      return { client: (c) => c, server: (s) => s, tool: (_n, cb) => cb };
    }
    default:
      throw new Error(`unknown variant ${name}`);
  }
}

/**
 * The floor: the least any tracing can cost. One CLIENT span per callTool with its context
 * injected into params._meta, one SERVER span per tool callback parented on it, status ERROR on
 * a failure, nothing else.
 */
function floor() {
  const tracer = trace.getTracer('floor');
  return {
    client(c) {
      const callTool = c.callTool.bind(c);
      c.callTool = (params, ...rest) => {
        const span = tracer.startSpan(`tools/call ${params.name}`, { kind: SpanKind.CLIENT });
        const ctx = trace.setSpan(context.active(), span);
        const meta = { ...params._meta };
        propagation.inject(ctx, meta);
        // Not `{ ...params, _meta: meta }`: V8 (Node 20) takes a slow path (~0.8 µs) for a
        // spread followed by a key the source lacks; the floor should not pay for that.
        return context
          .with(ctx, () => callTool(Object.assign({}, params, { _meta: meta }), ...rest))
          .then(
            (r) => {
              if (r.isError === true) span.setStatus({ code: SpanStatusCode.ERROR });
              span.end();
              return r;
            },
            (e) => {
              span.setStatus({ code: SpanStatusCode.ERROR });
              span.end();
              throw e;
            },
          );
      };
      return c;
    },
    server: (s) => s,
    tool(name, cb) {
      return (...args) => {
        const extra = args[args.length - 1];
        // SDK 1.x hands the request's _meta over as extra._meta, 2.x as ctx.mcpReq._meta.
        const parent = propagation.extract(
          ROOT_CONTEXT,
          extra?._meta ?? extra?.mcpReq?._meta ?? {},
        );
        const span = tracer.startSpan(`tools/call ${name}`, { kind: SpanKind.SERVER }, parent);
        return context.with(trace.setSpan(parent, span), async () => {
          try {
            return await cb(...args);
          } catch (e) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw e;
          } finally {
            span.end();
          }
        });
      };
    },
  };
}
