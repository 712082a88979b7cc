/**
 * The package as npm publishes it, installed for real (`npm install` of the packed tarball into a
 * fresh project on Node.js 20 with the 2.x line beside it) and used from there the ways the README
 * says: ES module import, CommonJS require, the zero-code entry with `--import` and `--require`,
 * the CLI, the JSON Schema, and the TypeScript types under `nodenext` resolution; and installed
 * without any OpenTelemetry SDK. What the repository's own tests cannot see: a file missing from
 * `files`, an `exports` target that is not shipped, a source map pointing at nothing, a
 * dependency npm nests. Telemetry on each OpenTelemetry JS line: lines.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../observability/helpers.js';
import { runtimes, type Runtime } from '../helpers/runtimes.js';
import { failingCallCommonJs, failingCallModule } from './apps.js';
import {
  NAME,
  copiesOf,
  newProject,
  node as runNode,
  pack,
  userTsconfig,
  type Packed,
} from './install.js';

const APP_DEPENDENCIES = [
  '@opentelemetry/api@1.9.1',
  '@opentelemetry/sdk-node@0.223.0',
  '@modelcontextprotocol/sdk@1.32.2',
];
let runtime: Runtime;
let project: string;
let packed: Packed;

async function setUpProject(): Promise<void> {
  runtime = runtimes()[0]!;
  packed = pack();
  project = await newProject(runtime, packed, APP_DEPENDENCIES);
}

/** Runs node in a project; fails the test on a non-zero exit, with what it printed. */
async function node(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd: string = project,
  on: Runtime = runtime,
): Promise<{ stdout: string; stderr: string }> {
  const result = await runNode(on, cwd, args, env);
  expect(result.code, `${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

/** The data model, which the package depends on and brings. */
const DATA_MODEL = '@omcp/tool-failure';
/** Every entry point, what it is imported for, and one call through it (with the data model's). */
const ENTRIES = {
  [NAME]: ['McpInstrumentation', 'instrumentClient', 'instrumentServer'],
  [DATA_MODEL]: ['toolFailure', 'readToolFailure', 'classifyError', 'ToolFailureError'],
  [`${NAME}/retry`]: ['withToolRetry', 'createToolRetry', 'decide'],
  [`${NAME}/semconv`]: ['ATTR_MCP_TOOL_FAILURE_CLASS'],
  [`${NAME}/relay`]: ['markRelayed'],
  [`${NAME}/workers`]: ['flushAfterResponse'],
  [`${NAME}/executable`]: ['startExecutable'],
};
const USE = `
  const result = toolFailure({ class: 'reliability', code: 'upstream_unavailable', retryable: true });
  const reading = readToolFailure(result);
  console.log(JSON.stringify({
    status: reading.status,
    code: reading.failure?.code,
    classified: classifyError(Object.assign(new Error('x'), { code: 'ECONNRESET' })).class,
    decision: decide(reading, { attempt: 1, now: 0, elapsedMs: 0, annotations: { idempotentHint: true }, limits: { maxAttempts: 3, maxElapsedMs: 1000 } }).action,
    types: [McpInstrumentation, instrumentClient, instrumentServer, ToolFailureError, withToolRetry, createToolRetry, markRelayed, flushAfterResponse, startExecutable].map((f) => typeof f),
    name: ATTR_MCP_TOOL_FAILURE_CLASS,
  }));
`;
const EXPECTED = {
  status: 'valid',
  code: 'upstream_unavailable',
  classified: 'reliability',
  decision: 'retry',
  types: Array(9).fill('function'),
  name: 'mcp.tool.failure.class',
};
const esmImports = Object.entries(ENTRIES)
  .map(([entry, names]) => `import { ${names.join(', ')} } from '${entry}';`)
  .join('\n');
const cjsRequires = Object.entries(ENTRIES)
  .map(([entry, names]) => `const { ${names.join(', ')} } = require('${entry}');`)
  .join('\n');

/** A call to a tool that throws `ToolFailureError`; prints the failure's class and code. */
const CALL_FAILING = (errorClass: string): string => `
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('t', {}, async () => {
    throw new ${errorClass}({ class: 'governance', code: 'permission_denied' });
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(a);
  const r = await client.callTool({ name: 't', arguments: {} });
  const f = r._meta?.['io.modelcontextprotocol/toolFailure'];
  console.log(JSON.stringify({ class: f?.class, code: f?.code }));
  await client.close();
`;
const ZERO_CODE_ENV = {
  OTEL_TRACES_EXPORTER: 'console',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_SERVICE_NAME: 'pack-test',
};

describe('the packed package, installed in a fresh project', () => {
  beforeAll(setUpProject, 400_000);

  it('ships every file its manifest points at, the sources its maps name, and no tests', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const targets = new Set<string>([manifest.main, manifest.types]);
    const walk = (v: unknown): void => {
      if (typeof v === 'string') targets.add(v);
      else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(manifest.exports);
    walk(manifest.bin);
    for (const t of targets) {
      const path = t.replace(/^\.\//, '');
      if (!path.includes('*')) {
        expect(packed.files, t).toContain(path);
        continue;
      }
      // A subpath pattern: it must match shipped files.
      const [head, tail] = path.split('*') as [string, string];
      expect(
        packed.files.some((f) => f.startsWith(head) && f.endsWith(tail)),
        t,
      ).toBe(true);
    }
    expect(packed.files).toContain('README.md');
    expect(packed.files).toContain('LICENSE');
    expect(packed.files.filter((p) => /^(test|bench|demo|scripts|\.ci)\//.test(p))).toEqual([]);
    // Every source a shipped source map names is shipped too.
    for (const map of packed.files.filter((p) => p.endsWith('.js.map'))) {
      const { sources } = JSON.parse(
        readFileSync(join(project, 'node_modules', NAME, map), 'utf8'),
      );
      for (const source of sources as string[]) {
        const path = join(map, '..', source);
        expect(packed.files, `${map} -> ${source}`).toContain(path);
      }
    }
  });

  it('imports every entry point as an ES module and requires it as CommonJS, with the same API', async () => {
    writeFileSync(join(project, 'use.mjs'), `${esmImports}\n${USE}`);
    writeFileSync(join(project, 'use.cjs'), `${cjsRequires}\n${USE}`);
    expect(JSON.parse((await node(['use.mjs'])).stdout)).toEqual(EXPECTED);
    expect(JSON.parse((await node(['use.cjs'])).stdout)).toEqual(EXPECTED);
  });

  it('instruments an app with zero code, through --import (ESM) and --require (CommonJS)', async () => {
    writeFileSync(join(project, 'app.mjs'), failingCallModule('t', 'boom'));
    writeFileSync(join(project, 'app.cjs'), failingCallCommonJs('t', 'boom'));
    for (const [flag, app] of [
      ['--import', 'app.mjs'],
      ['--require', 'app.cjs'],
    ] as const) {
      const { stdout: out } = await node([flag, `${NAME}/register`, app], ZERO_CODE_ENV);
      const id = /correlationId=([0-9a-f]{32})/.exec(out)?.[1];
      expect(id, out).toBeDefined();
      // The console exporter printed the server span whose trace ID the client was given.
      expect(out).toContain(`traceId: '${id}'`);
      expect(out).toContain("name: 'tools/call t'");
    }
  });

  it.each([20, 24])(
    "without an OpenTelemetry SDK on Node.js %i: one line names what to install for the application's api, and failure objects still work",
    async (major) => {
      const on = runtimes().find((r) => r.major === major)!;
      const api = major === 20 ? '1.9.1' : '1.10.0';
      const lean = await newProject(
        on,
        packed,
        [`@opentelemetry/api@${api}`, '@modelcontextprotocol/sdk@1.32.2'],
        {
          prefix: 'omcp-lean',
        },
      );
      expect(copiesOf(lean, '@opentelemetry/sdk-node')).toEqual([]);
      const call = CALL_FAILING('ToolFailureError');
      writeFileSync(
        join(lean, 'app.mjs'),
        `import { ToolFailureError } from '${DATA_MODEL}';
  import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
  import { Client } from '@modelcontextprotocol/sdk/client/index.js';
  import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
  ${call}`,
      );
      writeFileSync(
        join(lean, 'app.cjs'),
        `const { ToolFailureError } = require('${DATA_MODEL}');
  const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
  (async () => {${call}})();`,
      );
      for (const [flag, app] of [
        ['--import', 'app.mjs'],
        ['--require', 'app.cjs'],
      ] as const) {
        const { stdout, stderr } = await node(
          [flag, `${NAME}/register`, app],
          ZERO_CODE_ENV,
          lean,
          on,
        );
        expect(JSON.parse(stdout)).toEqual({ class: 'governance', code: 'permission_denied' });
        expect(stderr).toBe(
          `@omcp/instrumentation-mcp/register: no OpenTelemetry SDK is installed (neither @opentelemetry/sdk-node nor @opentelemetry/sdk-trace-node): no spans, metrics or log records are exported; tool failures still get their failure objects. To export them, for @opentelemetry/api ${api}: npm install @opentelemetry/sdk-node@${major === 20 ? '0.223' : '0.301'}\n`,
        );
      }
    },
    400_000,
  );

  it("resolves the data model's JSON Schema, which it brings", async () => {
    writeFileSync(
      join(project, 'schema.cjs'),
      `console.log(require('${DATA_MODEL}/schema/tool-failure.schema.json').title);`,
    );
    expect((await node(['schema.cjs'])).stdout.trim().length).toBeGreaterThan(0);
  });

  it('type-checks every entry point for ES module and CommonJS consumers under nodenext resolution', async () => {
    const code = `import { McpInstrumentation, type McpInstrumentationConfig } from '${NAME}';
import { toolFailure, readToolFailure, type ToolFailure } from '${DATA_MODEL}';
import { AbortLink } from '${DATA_MODEL}/wire';
import { createToolRetry, type ToolRetryPolicy } from '${NAME}/retry';
import { ATTR_MCP_TOOL_FAILURE_CODE } from '${NAME}/semconv';
import { markRelaying } from '${NAME}/relay';
import { flushAfterResponse, type WaitUntilContext } from '${NAME}/workers';
import { splitAtDashes } from '${NAME}/executable';
const config: McpInstrumentationConfig = { captureToolPayloads: false };
export const instrumentation = new McpInstrumentation(config);
const policy: ToolRetryPolicy = { maxAttempts: 2 };
export const retry = createToolRetry(policy);
export const link = new AbortLink([]);
export const name: string = ATTR_MCP_TOOL_FAILURE_CODE;
export const relaying = markRelaying({});
const ctx: WaitUntilContext = { waitUntil: () => undefined };
export const flushed: Response = flushAfterResponse(new Response(null), ctx, async () => undefined);
export const split = splitAtDashes(['a', '--', 'b']).command;
const r = toolFailure({ class: 'governance', code: 'auth_required' });
const reading = readToolFailure(r);
const f: ToolFailure | undefined = reading.status === 'valid' ? reading.failure : undefined;
export const c: string | undefined = f?.class;
`;
    writeFileSync(join(project, 'check.mts'), code);
    writeFileSync(join(project, 'check.cts'), code);
    writeFileSync(
      join(project, 'tsconfig.json'),
      userTsconfig(['check.mts', 'check.cts'], ['node']),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await node([tsc, '-p', 'tsconfig.json']);
  });
});
