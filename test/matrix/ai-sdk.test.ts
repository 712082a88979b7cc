import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME } from '../../src/version.js';
import { TOOL_FAILURE_META_KEY } from '../../packages/tool-failure/src/constants.js';
import { runtimeOf } from '../helpers/runtimes.js';
import { FIXTURES_DIR, aiSdkCases, aiSdkFixture, platforms, type AiSdkCase } from './cases.js';
import { childEnv, limited, runChild, useLinePackages } from './children.js';
import {
  OtlpReceiver,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  type ReceivedSpan,
} from './otlp-receiver.js';

/**
 * The version matrix's AI SDK client row: `@ai-sdk/mcp` (its own JSON-RPC client, not the MCP
 * SDK) driven by the AI SDK's agent loop, `generateText` with `ai/test`'s mock model and the AI
 * SDK's OpenTelemetry integration (`experimental_telemetry`), against MCP SDK servers; under
 * CommonJS and ES modules, in NodeSDK, register and manual modes, over every transport
 * `@ai-sdk/mcp` offers, on Node.js 20 (OpenTelemetry JS 2.x) and 24 (3.x). The app is
 * test/fixtures/ai-sdk/scenario.cjs; spans arrive over OTLP/HTTP JSON. The check: the AI SDK's
 * tool span, the MCP client span and the server span are one trace, parent to child, and the
 * client span carries the failure the server sent, whose `correlationId` is that trace.
 */

const CHILD_TIMEOUT_MS = 60_000;
const HEX32 = /^[0-9a-f]{32}$/;
const NODE = new Map(platforms().map((p) => [p.node, runtimeOf(p.node).node]));
const fixture = aiSdkFixture();
const shared = join(FIXTURES_DIR, 'matrix-shared');

const receiver = new OtlpReceiver();
/** This package's root for each line: the repository, or the run's copy in the line's tree. */
const packageDir = useLinePackages(
  platforms().map((p) => p.line),
  receiver,
);

function preloadFlags(c: AiSdkCase): string[] {
  const esm = c.moduleSystem === 'esm';
  const ext = esm ? 'mjs' : 'cjs';
  const flag = esm ? '--import' : '--require';
  switch (c.mode) {
    case 'nodesdk':
      return [flag, join(fixture.dir, `nodesdk.${ext}`)];
    case 'manual':
      return [flag, join(shared, `manual.${ext}`)];
    case 'register':
      return [flag, join(packageDir(c.platform.line), 'register', `index.${ext}`)];
  }
}

function runApp(
  c: AiSdkCase,
  endpoint: string,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const node = NODE.get(c.platform.node);
  if (node === undefined) throw new Error(`no Node.js ${c.platform.node}`);
  const { line } = c.platform;
  const app = join(fixture.dir, `app.${c.moduleSystem === 'esm' ? 'mjs' : 'cjs'}`);
  const env = childEnv(line, packageDir(line), 'matrix-ai-sdk', endpoint, {
    MATRIX_MODE: c.mode,
    MATRIX_TRANSPORT: c.transport,
  });
  return runChild(node, [...preloadFlags(c), app], line, env, CHILD_TIMEOUT_MS);
}

function find(spans: ReceivedSpan[], name: string, kind: number): ReceivedSpan | undefined {
  return spans.find((s) => s.name === name && s.kind === kind);
}

for (const platform of platforms()) {
  describe(`@ai-sdk/mcp ${fixture.version} with ai ${fixture.ai} on Node.js ${platform.node}, OpenTelemetry JS ${platform.line.name}`, () => {
    it.concurrent.each(aiSdkCases(platform))(
      '$label: client spans, and one trace from the AI SDK tool span to the server span',
      async (c) => {
        expect(
          existsSync(join(fixture.dir, 'node_modules')),
          'test/fixtures/ai-sdk is not installed: run node scripts/install-fixtures.mjs',
        ).toBe(true);
        const run = `ai-sdk-node${platform.node}-${c.label.replaceAll(' ', '-')}`;
        const child = await limited(() => runApp(c, receiver.endpoint(run)));
        const detail = `exit ${String(child.code)}\n--- stderr\n${child.stderr}\n--- stdout\n${child.stdout}`;
        expect(child.code, detail).toBe(0);
        const lines = child.stdout.trim().split('\n');
        const report = JSON.parse(lines[lines.length - 1] ?? '{}') as {
          outputs: Record<string, { isError?: boolean; _meta?: Record<string, unknown> }>;
          turns: number;
        };
        // The loop ran: two tool steps, then the answer.
        expect(report.turns, detail).toBe(3);
        expect(report.outputs.ok?.isError ?? false).toBe(false);
        expect(report.outputs.fail?.isError).toBe(true);
        const failure = report.outputs.fail?._meta?.[TOOL_FAILURE_META_KEY] as
          { class: string; code: string; correlationId: string } | undefined;
        expect(failure, detail).toMatchObject({
          class: 'reliability',
          code: 'retryable_transient_error',
        });

        const spans = await receiver.waitFor(run, (s) =>
          ['ok', 'fail'].every(
            (tool) =>
              find(s, `tools/call ${tool}`, SPAN_KIND_CLIENT) !== undefined &&
              find(s, `tools/call ${tool}`, SPAN_KIND_SERVER) !== undefined,
          ),
        );
        expect(receiver.rejectedOf(run)).toEqual([]);
        const names = spans.map((s) => `${s.kind} ${s.scope} ${s.name}`).join('\n');
        const spanDetail = `${detail}\n--- spans\n${names}`;
        for (const tool of ['ok', 'fail']) {
          const client = find(spans, `tools/call ${tool}`, SPAN_KIND_CLIENT);
          const server = find(spans, `tools/call ${tool}`, SPAN_KIND_SERVER);
          expect(client?.scope).toBe(PACKAGE_NAME);
          expect(client?.traceId, spanDetail).toMatch(HEX32);
          expect(server?.traceId, spanDetail).toBe(client?.traceId);
          expect(server?.parentSpanId, spanDetail).toBe(client?.spanId);
          // The client span's parent is the AI SDK's own span of this tool call.
          const parent = spans.find((s) => s.spanId === client?.parentSpanId);
          expect(parent?.scope, spanDetail).not.toBe(PACKAGE_NAME);
          expect(parent?.traceId).toBe(client?.traceId);
          expect(JSON.stringify(parent?.attributes), spanDetail).toContain(tool);
          expect(client?.attributes['network.transport']).toBe(
            c.transport === 'stdio' ? 'pipe' : 'tcp',
          );
        }
        const client = find(spans, 'tools/call fail', SPAN_KIND_CLIENT);
        expect(client?.attributes['mcp.tool.failure.class']).toBe('reliability');
        expect(client?.attributes['mcp.tool.failure.code']).toBe('retryable_transient_error');
        expect(client?.attributes['mcp.tool.failure.correlation_id']).toBe(client?.traceId);
        expect(failure?.correlationId).toBe(client?.traceId);
        // Both tool calls belong to the one generateText trace.
        expect(find(spans, 'tools/call ok', SPAN_KIND_CLIENT)?.traceId).toBe(client?.traceId);
      },
      120_000,
    );
  });
}
