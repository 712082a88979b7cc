/**
 * Other MCP tracers in the same process, as users install them: `@sentry/node` 11.12.0 (its
 * `init` wraps every `McpServer` by itself) and `@traceloop/instrumentation-mcp` 0.27.0 (in a
 * NodeSDK, and through its `manuallyInstrument({ Client })`), beside the packed tarball in a
 * fresh project, in both registration orders, as ES modules and CommonJS. Each run is held to
 * the run of this package alone: the same tool results, one `traceparent` in `params._meta` that
 * names this package's client span, the server span its child, and the trace the caller's.
 * What each combination gives is the table in docs/frameworks.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { runtimes } from '../helpers/runtimes.js';
import {
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
} from '../../src/semconv.js';
import { COEXIST_FILES, parseOutput, type AppOutput } from './coexist-apps.js';
import { NAME, newProject, node, pack } from './install.js';

const PINNED = [
  '@opentelemetry/api@1.9.1',
  '@opentelemetry/sdk-node@0.223.0',
  '@modelcontextprotocol/sdk@1.32.2',
  '@sentry/node@11.12.0',
  '@traceloop/instrumentation-mcp@0.27.0',
];
/** OTLP span kinds. */
const SERVER = 2;
const CLIENT = 3;
const TOOLS = ['ok', 'boom'] as const;

type Module = 'esm' | 'cjs';
const preload = (module: Module, file: string): string[] => [
  module === 'esm' ? '--import' : '--require',
  file,
];
const app = (module: Module): string => (module === 'esm' ? 'app.mjs' : 'app.cjs');
const own = (module: Module, file: string): string =>
  `./${file}.${module === 'esm' ? 'mjs' : 'cjs'}`;

/** The setups this package runs under alone: the baselines. */
const baselines = {
  register: (m: Module) => ({ args: [...preload(m, `${NAME}/register`), app(m)], env: {} }),
  nodesdk: (m: Module) => ({
    args: [...preload(m, own(m, 'sdk')), app(m)],
    env: { COEXIST_ORDER: 'none' },
  }),
};

interface Combination {
  name: string;
  module: Module;
  baseline: keyof typeof baselines;
  args: string[];
  env: Record<string, string>;
  /** Whose spans sit between the caller's span and this package's client span. */
  traceloopManual: boolean;
  sentry: boolean;
}

function combinations(): Combination[] {
  const out: Combination[] = [];
  for (const module of ['esm', 'cjs'] as const) {
    const register = preload(module, `${NAME}/register`);
    // Sentry's own advice for both module systems: its init by --import (under --require, Node
    // runs the preload again on Sentry's module loader thread, and Sentry says so).
    const sentry = ['--import', './sentry.mjs'];
    const registerByImport = ['--import', `${NAME}/register`];
    const base = { module, env: {}, traceloopManual: false, sentry: false };
    out.push(
      {
        ...base,
        name: `Sentry init after the register entry (${module}, both --import)`,
        baseline: 'register',
        args: [...registerByImport, ...sentry, app(module)],
        sentry: true,
      },
      {
        ...base,
        name: `Sentry init before the register entry (${module}, both --import)`,
        baseline: 'register',
        args: [...sentry, ...registerByImport, app(module)],
        sentry: true,
      },
    );
    if (module === 'cjs')
      out.push({
        ...base,
        name: 'Sentry init by --import, the register entry by --require (cjs)',
        baseline: 'register',
        args: [...register, ...sentry, app(module)],
        sentry: true,
      });
    out.push({
      ...base,
      name: `Traceloop manuallyInstrument({ Client }) under the register entry (${module})`,
      baseline: 'register',
      args: [...register, app(module)],
      env: { TRACELOOP_MANUAL: '1' },
      traceloopManual: true,
    });
    for (const order of ['ours-first', 'traceloop-first'] as const) {
      const sdk = [...preload(module, own(module, 'sdk')), app(module)];
      out.push(
        {
          ...base,
          name: `Traceloop in NodeSDK, ${order} (${module})`,
          baseline: 'nodesdk',
          args: sdk,
          env: { COEXIST_ORDER: order },
        },
        {
          ...base,
          name: `Traceloop in NodeSDK, ${order}, with manuallyInstrument({ Client }) (${module})`,
          baseline: 'nodesdk',
          args: sdk,
          env: { COEXIST_ORDER: order, TRACELOOP_MANUAL: '1' },
          traceloopManual: true,
        },
      );
    }
  }
  return out;
}

interface Run {
  out: AppOutput;
  spans: ReceivedSpan[];
  stderr: string;
}

/** A tool result with its correlation id (the trace ID, new each run) blanked. */
function comparable(results: Record<string, unknown>): string {
  return JSON.stringify(results).replace(
    /"correlationId":"[0-9a-f]{32}"/g,
    '"correlationId":"<trace>"',
  );
}

/** The one span of this package named `tools/call <tool>` of `kind`. */
function ours(spans: ReceivedSpan[], tool: string, kind: number): ReceivedSpan {
  const found = spans.filter((s) => s.name === `tools/call ${tool}` && s.kind === kind);
  expect(found, `${tool} kind ${kind}: ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
}

const runtime = runtimes()[0]!;
let project: string;

async function runApp(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const receiver = await startOtlpReceiver();
  try {
    const result = await node(runtime, project, args, {
      ...env,
      OTEL_SERVICE_NAME: 'coexist',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    await receiver.waitFor((spans) =>
      TOOLS.every((t) => spans.some((s) => s.name === `tools/call ${t}` && s.kind === SERVER)),
    );
    return { out: parseOutput(result.stdout), spans: [...receiver.spans], stderr: result.stderr };
  } finally {
    await receiver.close();
  }
}

/** Traceloop's span names: `<tool>.tool`, `<method>.mcp`, `mcp.client.session`. */
const TRACELOOP_SPAN = /\.(tool|mcp)$|^mcp\.client\.session$/;

/** This package's span names and kinds, sorted: the same with another tracer as alone. */
const ownSpans = (run: Run): string[] =>
  run.spans
    .filter((s) => !TRACELOOP_SPAN.test(s.name))
    .map((s) => `${s.kind} ${s.name}`)
    .sort();

/** What must hold in every run with or without another tracer. */
function expectOneTrace(run: Run, traceloopManual: boolean): void {
  for (const tool of TOOLS) {
    const meta = run.out.metas[tool] ?? {};
    expect(Object.keys(meta).filter((k) => k.toLowerCase() === 'traceparent')).toEqual([
      'traceparent',
    ]);
    const client = ours(run.spans, tool, CLIENT);
    const server = ours(run.spans, tool, SERVER);
    expect(meta.traceparent).toBe(`00-${client.traceId}-${client.spanId}-01`);
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.traceId).toBe(run.out.agent.traceId);
    // Traceloop's `<tool>.tool` span, when it runs, wraps this package's client span.
    const traceloop = run.spans.filter((s) => s.name === `${tool}.tool`);
    expect(traceloop).toHaveLength(traceloopManual ? 1 : 0);
    expect(client.parentSpanId).toBe(traceloopManual ? traceloop[0]!.spanId : run.out.agent.spanId);
    for (const s of traceloop) expect(s.traceId).toBe(run.out.agent.traceId);
  }
  const failed = ours(run.spans, 'boom', SERVER);
  expect(failed.attributes[ATTR_MCP_TOOL_FAILURE_CLASS]).toBe('reliability');
  expect(failed.attributes[ATTR_MCP_TOOL_FAILURE_CODE]).toBe('internal_error');
  expect(failed.attributes[ATTR_MCP_TOOL_FAILURE_CORRELATION_ID]).toBe(failed.traceId);
  expect(comparable(run.out.results)).toContain(`"correlationId":"<trace>"`);
  expect(JSON.stringify(run.out.results.boom)).toContain(failed.traceId);
}

const baselineRuns = new Map<string, Run>();

beforeAll(async () => {
  project = await newProject(runtime, pack(), PINNED, { prefix: 'omcp-coexist' });
  for (const [file, text] of Object.entries(COEXIST_FILES))
    writeFileSync(join(project, file), text);
  for (const module of ['esm', 'cjs'] as const)
    for (const [name, setup] of Object.entries(baselines)) {
      const { args, env } = setup(module);
      baselineRuns.set(`${name}/${module}`, await runApp(args, env));
    }
}, 400_000);

describe('other MCP tracers in the same process (Node.js 20, packed tarball)', () => {
  it('this package alone: the baselines hold the invariants themselves', () => {
    for (const run of baselineRuns.values()) expectOneTrace(run, false);
  });

  it.each(combinations())(
    '$name: results unchanged, one traceparent, one trace',
    async (c) => {
      const run = await runApp(c.args, c.env);
      const baseline = baselineRuns.get(`${c.baseline}/${c.module}`)!;
      expect(comparable(run.out.results)).toBe(comparable(baseline.out.results));
      expect(ownSpans(run)).toEqual(ownSpans(baseline));
      for (const tool of TOOLS)
        expect(Object.keys(run.out.metas[tool] ?? {}).sort()).toEqual(
          Object.keys(baseline.out.metas[tool] ?? {}).sort(),
        );
      expectOneTrace(run, c.traceloopManual);
      if (c.baseline === 'register')
        expect(
          run.stderr.match(/register: OpenTelemetry JS \S+ started/g),
          run.stderr,
        ).toHaveLength(1);
      if (c.sentry) {
        // Sentry's own MCP server spans were made, in a trace of its own (its IDs travel in
        // the sentry-trace HTTP header, not in _meta).
        const call = run.out.sentry.find((s) => s.name === 'tools/call boom');
        expect(call?.op, JSON.stringify(run.out.sentry)).toBe('mcp.server');
        expect(call?.traceId).not.toBe(run.out.agent.traceId);
      }
    },
    60_000,
  );
});
