/**
 * The AI SDK's MCP client in a real install: a fresh project per OpenTelemetry JS line (2.x
 * for Node.js 20, installed by its npm; 3.x for Node.js 22 and 24, installed once by Node.js
 * 22's npm, since every version is pinned and npm picks the same ones on 24) installs
 * `@ai-sdk/mcp`, `ai`, `@ai-sdk/otel`, the MCP SDK server and the line's sdk-node, then adds the
 * packed tarball. The
 * matrix's AI SDK scenario (test/fixtures/ai-sdk/scenario.cjs: generateText with the mock model
 * and `experimental_telemetry`, the tools from `@ai-sdk/mcp`'s client, an MCP SDK server over
 * Streamable HTTP) runs as an ES module under the register entry and as CommonJS under a NodeSDK
 * setup file, importing this package by its name; spans arrive over OTLP/HTTP.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY } from '../../packages/tool-failure/src/constants.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { runtimes, type Runtime } from '../helpers/runtimes.js';
import { aiSdkFixture } from '../matrix/cases.js';
import { NAME, newProject, node, pack, type Packed } from './install.js';

const fixture = aiSdkFixture();
const LINES = {
  '2.x': ['@opentelemetry/api@1.9.1', '@opentelemetry/sdk-node@0.223.0'],
  '3.x': ['@opentelemetry/api@1.10.0', '@opentelemetry/sdk-node@0.301.0'],
} as const;
const APP_DEPENDENCIES = [
  `@ai-sdk/mcp@${fixture.version}`,
  `ai@${fixture.ai}`,
  `@ai-sdk/otel@${fixture.otel}`,
  '@modelcontextprotocol/server@2.4.0',
  '@modelcontextprotocol/sdk@1.32.2',
  'zod@4.6.7',
];

/** The scenario's modules, loaded by name as an application does. */
const MODULES = `createMCPClient, StdioMCPTransport, OpenTelemetry, generateText, stepCountIs,
  MockLanguageModelV4, v2, v1McpServer, SSEServerTransport, instrumentClient, instrumentServer`;
const APPS = {
  'app.mjs': `import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { OpenTelemetry } from '@ai-sdk/otel';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import * as v2 from '@modelcontextprotocol/server';
import { McpServer as v1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { instrumentClient, instrumentServer } from '${NAME}';
import scenario from './scenario.cjs';
await scenario.run({ ${MODULES} });
`,
  'app.cjs': `const { createMCPClient } = require('@ai-sdk/mcp');
const { StdioMCPTransport } = require('@ai-sdk/mcp/mcp-stdio');
const { OpenTelemetry } = require('@ai-sdk/otel');
const { generateText, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const v2 = require('@modelcontextprotocol/server');
const { McpServer: v1McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { SSEServerTransport } = require('@modelcontextprotocol/sdk/server/sse.js');
const { instrumentClient, instrumentServer } = require('${NAME}');
require('./scenario.cjs').run({ ${MODULES} }).catch((e) => { console.error(e); process.exitCode = 1; });
`,
  // The README's NodeSDK setup for CommonJS.
  'telemetry.cjs': `const { NodeSDK } = require('@opentelemetry/sdk-node');
const { McpInstrumentation } = require('${NAME}');
const sdk = new NodeSDK({ instrumentations: [new McpInstrumentation()] });
sdk.start();
process.once('beforeExit', () => sdk.shutdown());
`,
};

const RUNS = [
  { setup: 'zero-code', app: 'app.mjs', args: ['--import', `${NAME}/register`, 'app.mjs'] },
  { setup: 'NodeSDK', app: 'app.cjs', args: ['--require', './telemetry.cjs', 'app.cjs'] },
] as const;

let packed: Packed;
let receiver: OtlpReceiver | undefined;
/** The project of each line, installed by the first Node.js of that line. */
const projects = new Map<keyof typeof LINES, Promise<string>>();

async function installProject(runtime: Runtime, line: keyof typeof LINES): Promise<string> {
  const project = await newProject(runtime, packed, [...LINES[line], ...APP_DEPENDENCIES], {
    prefix: `omcp-ai-sdk-${line}`,
  });
  for (const [file, text] of Object.entries(APPS)) writeFileSync(join(project, file), text);
  for (const file of ['scenario.cjs', 'stdio-server.mjs'])
    copyFileSync(join(fixture.dir, file), join(project, file));
  return project;
}

beforeAll(() => {
  packed = pack();
});

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe.each(runtimes())('Node.js $major, installed from the tarball', (runtime: Runtime) => {
  const line = runtime.major === 20 ? '2.x' : '3.x';
  let project: string;

  beforeAll(async () => {
    let installing = projects.get(line);
    if (installing === undefined) {
      installing = installProject(runtime, line);
      projects.set(line, installing);
    }
    project = await installing;
  }, 400_000);

  it.each(RUNS)(
    `OpenTelemetry JS ${line}, $setup, $app: AI SDK client spans in the AI SDK's trace, down to the server span`,
    async ({ args }) => {
      const otlp = await startOtlpReceiver();
      receiver = otlp;
      const result = await node(runtime, project, args, {
        MATRIX_TRANSPORT: 'http',
        OTEL_SERVICE_NAME: 'pack-ai-sdk',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
      });
      const detail = `${result.stdout}\n${result.stderr}`;
      expect(result.code, detail).toBe(0);
      const lines = result.stdout.trim().split('\n');
      const report = JSON.parse(lines[lines.length - 1] ?? '{}') as {
        outputs: Record<string, { _meta?: Record<string, { correlationId?: string }> }>;
      };
      const id = report.outputs.fail?._meta?.[TOOL_FAILURE_META_KEY]?.correlationId;
      expect(id, detail).toMatch(/^[0-9a-f]{32}$/);

      await otlp.waitFor((spans) =>
        ['ok', 'fail'].every((t) =>
          [2, 3].every((kind) =>
            spans.some((s) => s.name === `tools/call ${t}` && s.kind === kind),
          ),
        ),
      );
      const calls = otlp.spans.filter((s) => s.name.startsWith('tools/call '));
      for (const span of calls) expect(span.traceId, detail).toBe(id);
      const client = calls.find((s) => s.name === 'tools/call fail' && s.kind === 3);
      const server = calls.find((s) => s.name === 'tools/call fail' && s.kind === 2);
      expect(server?.parentSpanId).toBe(client?.spanId);
      expect(client?.attributes['mcp.tool.failure.class']).toBe('reliability');
      expect(client?.attributes['mcp.tool.failure.correlation_id']).toBe(id);
      // The client span's parent is the AI SDK's tool span of the same generateText trace.
      const parent = otlp.spans.find((s) => s.spanId === client?.parentSpanId);
      expect(parent?.traceId).toBe(id);
      expect(JSON.stringify(parent?.attributes)).toContain('fail');
    },
    90_000,
  );
});
