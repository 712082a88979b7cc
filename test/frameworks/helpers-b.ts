/**
 * What the OpenAI Agents JS and Mastra tests share: a fresh project with the framework at the
 * versions its fixture pins (`npm ci` from the committed lock file), this package's packed
 * tarball installed into it as a user would, the apps and the MCP server of test/frameworks/b/
 * copied beside them, and the record of what reached the server.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, run, type RunResult } from '../observability/helpers.js';
import type { Runtime } from '../helpers/runtimes.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { pack, runtimeEnv } from '../packaging/install.js';
import { frameworkProject } from './helpers.js';

/** The apps and the server the projects run. */
export const APPS_DIR = join(ROOT, 'test', 'frameworks', 'b');

/** One tools/call as the server recorded it. */
export interface ServerCall {
  /** The server's name (its SERVER_NAME), when the app runs several. */
  server: string | undefined;
  tool: string;
  /** The how-manieth call of this tool in its server process. */
  n: number;
  /** Epoch milliseconds when the server received it. */
  at: number;
  traceparent: string | undefined;
}

const CLIENT = 3;
const SERVER = 2;

/** What a test file uses of its framework's project, once beforeAll has made it. */
export interface FrameworkSetup {
  readonly project: string;
  readonly receiver: OtlpReceiver;
}

/**
 * For the calling test file: an OTLP receiver and a project with `fixture`'s locked
 * dependencies, the tarball and the apps of test/frameworks/b/, set up with `runtime`'s npm in
 * beforeAll and removed in afterAll.
 */
export function useFrameworkProject(
  fixture: 'openai-agents' | 'mastra',
  runtime: Runtime,
): FrameworkSetup {
  let project: string | undefined;
  let receiver: OtlpReceiver | undefined;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    project = await frameworkProject(fixture, runtime, pack(), APPS_DIR);
  }, 600_000);
  afterAll(async () => {
    await receiver?.close();
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  }, 120_000);
  return {
    get project() {
      if (project === undefined) throw new Error(`no ${fixture} project yet`);
      return project;
    },
    get receiver() {
      if (receiver === undefined) throw new Error('no OTLP receiver yet');
      return receiver;
    },
  };
}

/** Runs an app of the project under the register entry, exporting spans to `otlpUrl`. */
export function runApp(
  runtime: Runtime,
  project: string,
  app: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<RunResult> {
  return run(runtime.node, ['--import', '@omcp/instrumentation-mcp/register', app, ...args], {
    cwd: project,
    env: runtimeEnv(runtime, {
      SERVER_FILE: join(project, 'server.mjs'),
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env,
    }),
    timeoutMs: 120_000,
  });
}

/** What one run of an app gave. */
export interface AppRun<T> {
  /** The lines it printed, by tool. */
  lines: Map<string, T>;
  /** The calls its servers recorded. */
  calls: ServerCall[];
  /** The spans of its service (the app's and its servers'). */
  spans: ReceivedSpan[];
}

/**
 * Runs `app` with `tools` on `runtime` as the service `<name>-<major>`, its servers recording to
 * calls-<name>-<major>.jsonl; it must exit 0. Then waits for `serverSpans` server spans of the
 * service at the receiver.
 */
export async function runAppTraced<T extends { tool: string }>(
  setup: FrameworkSetup,
  runtime: Runtime,
  app: string,
  tools: readonly string[],
  { name, serverSpans, env = {} }: { name: string; serverSpans: number; env?: NodeJS.ProcessEnv },
): Promise<AppRun<T>> {
  const callsFile = join(setup.project, `calls-${name}-${runtime.major}.jsonl`);
  const service = `${name}-${runtime.major}`;
  const result = await runApp(runtime, setup.project, app, tools, {
    CALLS_FILE: callsFile,
    ...env,
    OTEL_SERVICE_NAME: service,
    OTEL_EXPORTER_OTLP_ENDPOINT: setup.receiver.url,
  });
  expect(result.code, result.stderr).toBe(0);
  const lines = linesByTool<T>(result.stdout);
  const calls = serverCalls(callsFile);
  await setup.receiver.waitFor(
    (all) =>
      all.filter((s) => s.serviceName === service && s.kind === SERVER).length >= serverSpans,
  );
  return { lines, calls, spans: setup.receiver.spans.filter((s) => s.serviceName === service) };
}

/**
 * One trace from the app's span `turn` down: two client spans of `tools/call <tool>` in it, two
 * server spans, each the child of one of them, and each of `calls` sent with that trace.
 */
export function expectOneTrace(
  spans: ReceivedSpan[],
  turn: string,
  tool: string,
  calls: ServerCall[],
): void {
  const root = spans.find((s) => s.name === turn)!;
  const trace = spans.filter((s) => s.traceId === root.traceId);
  const clients = trace.filter((s) => s.kind === CLIENT && s.name === `tools/call ${tool}`);
  const servers = trace.filter((s) => s.kind === SERVER && s.name === `tools/call ${tool}`);
  expect(clients).toHaveLength(2);
  expect(servers).toHaveLength(2);
  const clientIds = new Set(clients.map((s) => s.spanId));
  for (const server of servers) expect(clientIds.has(server.parentSpanId!)).toBe(true);
  for (const call of calls) expect(call.traceparent).toContain(root.traceId);
}

/** A line for each of `tools`, each after two model turns, and no model input holding `hidden`. */
export function expectModelInputsWithout(
  lines: Map<string, { modelTurns: number; modelInput: string }>,
  tools: readonly string[],
  hidden: readonly string[],
): void {
  expect([...lines.keys()].sort()).toEqual([...tools].sort());
  for (const [tool, line] of lines) {
    expect(line.modelTurns, tool).toBe(2);
    for (const text of hidden) expect(line.modelInput, tool).not.toContain(text);
  }
}

/** The text the model gets for refund_invoice's governance failure, quoting `reference`. */
export function refundFailureText(reference: string): string {
  return [
    'Refunds need approval',
    '',
    '[tool failure]',
    'class: governance',
    'code: approval_required',
    'retry: no',
    'guidance: A refund needs a manager to approve it; ask the person to request approval.',
    `reference: ${reference} (quote this when reporting the problem)`,
  ].join('\n');
}

/** The calls the server recorded in `file` (none when it was never written). */
export function serverCalls(file: string): ServerCall[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ServerCall);
}

/** The JSON lines an app printed on stdout, keyed by their `tool`. */
export function linesByTool<T extends { tool: string }>(stdout: string): Map<string, T> {
  const out = new Map<string, T>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const value = JSON.parse(line) as T;
    out.set(value.tool, value);
  }
  return out;
}

/** The lines of `app` between `// docs:start <name>` and `// docs:end <name>`. */
export function docsRegion(app: string, name: string): string {
  const text = readFileSync(join(APPS_DIR, app), 'utf8');
  const start = text.indexOf(`// docs:start ${name}\n`);
  const end = text.indexOf(`// docs:end ${name}`);
  if (start === -1 || end === -1) throw new Error(`${app} has no docs region ${name}`);
  return text.slice(start + `// docs:start ${name}\n`.length, end).trimEnd();
}

/** The fenced code blocks of docs/frameworks.md. */
export function frameworksDocBlocks(): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'frameworks.md'), 'utf8');
  return [...text.matchAll(/```(?:js|ts|javascript|typescript)\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.trimEnd(),
  );
}

/**
 * What importing (ESM) or requiring (CommonJS) `frameworks/<adapter>` prints in `project`:
 * `imported`, or the error's name and message.
 */
export async function loadAdapter(
  runtime: Runtime,
  project: string,
  adapter: string,
  file: 'load.mjs' | 'load.cjs',
): Promise<RunResult> {
  return run(runtime.node, [file, adapter], { cwd: project, env: runtimeEnv(runtime) });
}

/** The one line an adapter's import gives when its framework is not installed. */
export function missingFrameworkLine(adapter: string, framework: string): string {
  return `MissingFrameworkError: @omcp/instrumentation-mcp/frameworks/${adapter} needs ${framework}, which is not installed: npm install ${framework}\n`;
}

/** What test/frameworks/b/wrap-checks.mjs prints for an adapter. */
export interface WrapChecks {
  notTheFramework: string | null;
  retryOnThrow: string | null;
  sameObject: boolean;
}

/** Runs wrap-checks.mjs for `adapter` in `project`. */
export async function wrapChecks(
  runtime: Runtime,
  project: string,
  adapter: string,
): Promise<WrapChecks> {
  const result = await run(runtime.node, ['wrap-checks.mjs', adapter], {
    cwd: project,
    env: runtimeEnv(runtime),
  });
  if (result.code !== 0) throw new Error(`wrap-checks.mjs failed:\n${result.stderr}`);
  const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
  return JSON.parse(line ?? 'null') as WrapChecks;
}

/**
 * The tests of `adapter` installed beside its framework: it loads (ESM and CommonJS), the
 * `other` adapter says in one line that its framework is missing, and withToolFailures refuses
 * an object that is not the framework's (`notTheFramework`, the TypeError's message) and a
 * policy with retryOnThrow at wrap time, and wrapping twice changes nothing.
 */
export function describeAdapterBesideFramework(
  setup: FrameworkSetup,
  runtime: Runtime,
  adapter: string,
  other: { adapter: string; framework: string },
  notTheFramework: string,
): void {
  describe('the adapters as optional peers', () => {
    it.each(['load.mjs', 'load.cjs'] as const)(
      `frameworks/${adapter} loads beside its framework (%s)`,
      async (file) => {
        const result = await loadAdapter(runtime, setup.project, adapter, file);
        expect(result.stdout).toBe('imported\n');
      },
    );

    // The project has only its own framework: the other adapter says so in one line.
    it.each(['load.mjs', 'load.cjs'] as const)(
      `frameworks/${other.adapter} without ${other.framework} says so in one line (%s)`,
      async (file) => {
        const result = await loadAdapter(runtime, setup.project, other.adapter, file);
        expect(result.stderr).toBe('');
        expect(result.stdout).toBe(missingFrameworkLine(other.adapter, other.framework));
      },
    );
  });

  describe(`withToolFailures (frameworks/${adapter}) on bad input`, () => {
    it('refuses an object that is not the framework’s, and a policy with retryOnThrow, at wrap time; wrapping twice changes nothing', async () => {
      const checks = await wrapChecks(runtime, setup.project, adapter);
      expect(checks.notTheFramework).toBe(notTheFramework);
      expect(checks.retryOnThrow).toMatch(
        new RegExp(
          `^RangeError: withToolFailures \\(${adapter}\\): retryOnThrow is not allowed here`,
        ),
      );
      expect(checks.sameObject).toBe(true);
    });
  });
}
