/**
 * The MCP reference servers (server-filesystem, server-memory, server-everything, pinned in
 * test/fixtures/reference-servers/ with their own SDK 1.x), each started as a stdio child
 * process under the zero-code entry and exporting over OTLP/HTTP JSON to a local receiver. A
 * real SDK 1.x client in this process (instrumented, in-memory spans) makes each server fail in
 * the ways it can; every failure object has the class and code docs/classification.md gives, its
 * correlationId is the trace ID of the server span, and the client span shares that trace.
 */
import { SpanKind } from '@opentelemetry/api';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expectMcpError } from '../helpers/mcp-v1.js';
import { otlpTracesEnv } from '../observability/helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { root } from './gate-tools.js';

const t = setupTelemetry();
const fixture = join(
  root,
  'test',
  'fixtures',
  'reference-servers',
  'node_modules',
  '@modelcontextprotocol',
);
const bin = (server: string): string => join(fixture, `server-${server}`, 'dist', 'index.js');
const rulesFile = join(root, 'examples', 'classification-rules', 'server-filesystem.json');

interface FailureObject {
  class: string;
  code: string;
  correlationId: string;
  retryable?: boolean;
  agentGuidance?: string;
}

let receiver: OtlpReceiver;
let allowed: string;
let outside: string;
const open: Client[] = [];

beforeAll(async () => {
  for (const server of ['filesystem', 'memory', 'everything'])
    if (!existsSync(bin(server)))
      throw new Error(`${bin(server)} is missing: run node scripts/install-fixtures.mjs`);
  receiver = await startOtlpReceiver();
  allowed = mkdtempSync(join(tmpdir(), 'omcp-ref-allowed-'));
  outside = mkdtempSync(join(tmpdir(), 'omcp-ref-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'not for the agent');
});

afterAll(async () => {
  await Promise.allSettled(open.map((c) => c.close()));
  await receiver?.close();
  for (const dir of [allowed, outside])
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Starts `server` zero-code (`node --import .../register`, cwd the repository root). */
async function connect(
  server: string,
  args: string[] = [],
  env: Record<string, string> = {},
  capabilities: Record<string, unknown> = {},
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', '@omcp/instrumentation-mcp/register', bin(server), ...args],
    cwd: root,
    stderr: 'pipe',
    env: {
      ...(process.env as Record<string, string>),
      ...(otlpTracesEnv(receiver.url, `ref-${server}`) as Record<string, string>),
      ...env,
    },
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'reference-servers-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  open.push(client);
  return { client, stderr: () => stderr };
}

/** The server span of `tool` in trace `traceId`, as the receiver got it. */
async function serverSpan(service: string, tool: string, traceId: string): Promise<ReceivedSpan> {
  const match = (s: ReceivedSpan): boolean =>
    s.serviceName === `ref-${service}` &&
    s.kind === 2 &&
    s.name === `tools/call ${tool}` &&
    s.traceId === traceId;
  await receiver.waitFor((spans) => spans.some(match), 10_000);
  return receiver.spans.find(match)!;
}

/** The client span (this process) of `tool` in trace `traceId`. */
function clientSpan(tool: string, traceId: string) {
  return t
    .finished()
    .find(
      (s) =>
        s.kind === SpanKind.CLIENT &&
        s.name === `tools/call ${tool}` &&
        s.spanContext().traceId === traceId,
    );
}

/**
 * Calls `tool`, expects an error result carrying a failure object of `cls`/`code`, and checks
 * the correlationId against the server span and the client span's trace.
 */
async function expectFailure(
  c: { client: Client },
  service: string,
  tool: string,
  args: Record<string, unknown>,
  cls: string,
  code: string,
): Promise<{ text: string; span: ReceivedSpan; failure: FailureObject }> {
  const result = await c.client.callTool({ name: tool, arguments: args });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '';
  expect(result.isError, text).toBe(true);
  const failure = (result._meta as Record<string, FailureObject> | undefined)?.[KEY];
  expect(failure, text).toBeDefined();
  expect({ class: failure!.class, code: failure!.code }).toEqual({ class: cls, code });
  expect(failure!.correlationId).toMatch(/^[0-9a-f]{32}$/);
  const span = await serverSpan(service, tool, failure!.correlationId);
  expect(span.attributes['mcp.tool.failure.correlation_id']).toBe(failure!.correlationId);
  expect(span.attributes['mcp.tool.failure.class']).toBe(cls);
  expect(span.attributes['mcp.tool.failure.code']).toBe(code);
  expect(clientSpan(tool, failure!.correlationId), 'client span in the same trace').toBeDefined();
  return { text, span, failure: failure! };
}

/** server-filesystem's read_text_file of `path`, which must fail with that class and code. */
function expectReadFailure(
  fs: { client: Client },
  path: unknown,
  [cls, code]: readonly [string, string],
): ReturnType<typeof expectFailure> {
  return expectFailure(fs, 'filesystem', 'read_text_file', { path }, cls, code);
}

const NOT_FOUND = ['capability', 'resource_not_found'] as const;
const DENIED = ['governance', 'permission_denied'] as const;

describe('reference servers under the zero-code entry', () => {
  it('server-filesystem: missing file, outside the allowed directory, invalid input, unknown tool', async () => {
    const fs = await connect('filesystem', [allowed], {
      OTEL_INSTRUMENTATION_MCP_CLASSIFICATION_RULES: rulesFile,
    });
    await expectReadFailure(fs, join(allowed, 'missing.txt'), NOT_FOUND);
    await expectReadFailure(fs, join(outside, 'secret.txt'), DENIED);
    await expectReadFailure(fs, 42, ['capability', 'invalid_input']);
    const unknown = await expectFailure(
      fs,
      'filesystem',
      'no_such_tool',
      {},
      'capability',
      'capability_unsupported',
    );
    // SDK 1.32.2's McpServer answers an unknown tool with an error result (not a JSON-RPC error)
    // whose text carries -32602: one of the SDK's own refusals, classified by that text.
    expect(unknown.text).toBe('MCP error -32602: Tool no_such_tool not found');
  });

  it('server-filesystem with no configuration: its rule pack classifies its refusals', async () => {
    const fs = await connect('filesystem', [allowed]);
    const a = join(allowed, 'a.txt');
    const b = join(allowed, 'b.txt');
    writeFileSync(a, 'alpha\n');
    writeFileSync(b, 'beta\n');
    const outsideRead = await expectReadFailure(fs, join(outside, 'secret.txt'), DENIED);
    expect(outsideRead.text).toMatch(/^Access denied - path outside allowed directories/);
    expect(outsideRead.failure.agentGuidance).toMatch(/outside the directories/);
    const windows = await expectReadFailure(fs, 'C:\\Windows\\win.ini', DENIED);
    expect(windows.text).toMatch(/^Access denied - Windows-style path/);
    // A missing file or folder needs no rule: the built-in rules make ENOENT resource_not_found.
    await expectReadFailure(fs, join(allowed, 'missing.txt'), NOT_FOUND);
    await expectFailure(
      fs,
      'filesystem',
      'write_file',
      { path: join(allowed, 'no-dir', 'x.txt'), content: 'x' },
      'capability',
      'resource_not_found',
    );
    const cases: Array<[string, Record<string, unknown>, string, string, RegExp]> = [
      [
        'edit_file',
        { path: a, edits: [{ oldText: 'not in the file', newText: 'x' }] },
        'capability',
        'invalid_input',
        /^Could not find exact match for edit/,
      ],
      [
        'read_text_file',
        { path: a, head: 1, tail: 1 },
        'capability',
        'invalid_input',
        /^Cannot specify both head and tail/,
      ],
      [
        'move_file',
        { source: a, destination: b },
        'capability',
        'invalid_input',
        /^Destination already exists/,
      ],
    ];
    for (const [tool, args, cls, code, text] of cases) {
      const r = await expectFailure(fs, 'filesystem', tool, args, cls, code);
      expect(r.text, tool).toMatch(text);
    }
  });

  it('server-filesystem with OTEL_INSTRUMENTATION_MCP_RULE_PACKS=false: outside the allowed directory is internal_error', async () => {
    // A plain Error no built-in rule knows: the documented default without the pack.
    const fs = await connect('filesystem', [allowed], {
      OTEL_INSTRUMENTATION_MCP_RULE_PACKS: 'false',
    });
    const r = await expectReadFailure(fs, join(outside, 'secret.txt'), [
      'reliability',
      'internal_error',
    ]);
    expect(r.text).toMatch(/^Access denied - path outside allowed directories/);
  });

  it('server-memory: invalid input, unknown tool, a missing entity', async () => {
    const memory = await connect('memory', [], { MEMORY_FILE_PATH: join(allowed, 'memory.jsonl') });
    await expectFailure(
      memory,
      'memory',
      'create_entities',
      { entities: 'not a list' },
      'capability',
      'invalid_input',
    );
    await expectFailure(memory, 'memory', 'open_nodes', {}, 'capability', 'invalid_input');
    const missing = await expectFailure(
      memory,
      'memory',
      'add_observations',
      { observations: [{ entityName: 'nobody', contents: ['x'] }] },
      'capability',
      'resource_not_found',
    );
    expect(missing.text).toMatch(/^Entity with name nobody not found/);
    await expectFailure(
      memory,
      'memory',
      'no_such_tool',
      {},
      'capability',
      'capability_unsupported',
    );
  });

  it('server-everything: invalid input, unknown tool, refusals of its rule pack', async () => {
    const everything = await connect(
      'everything',
      ['stdio'],
      { GZIP_ALLOWED_DOMAINS: 'example.org' },
      { elicitation: { url: {} } },
    );
    await expectFailure(
      everything,
      'everything',
      'echo',
      { message: 42 },
      'capability',
      'invalid_input',
    );
    await expectFailure(
      everything,
      'everything',
      'get-sum',
      { a: 'one', b: 2 },
      'capability',
      'invalid_input',
    );
    await expectFailure(
      everything,
      'everything',
      'no_such_tool',
      {},
      'capability',
      'capability_unsupported',
    );
    // Plain Errors its rule pack classifies: an unsupported protocol, a domain not allowed
    // (checked before any fetch, so nothing leaves the machine).
    await expectFailure(
      everything,
      'everything',
      'gzip-file-as-resource',
      { data: 'file:///etc/hostname' },
      'capability',
      'invalid_input',
    );
    const blocked = await expectFailure(
      everything,
      'everything',
      'gzip-file-as-resource',
      { data: 'https://blocked.invalid/file.txt' },
      'governance',
      'policy_blocked',
    );
    expect(blocked.text).toMatch(/Domain blocked\.invalid is not in the allowed domains list/);
    // The one error SDK 1.x's McpServer does not turn into a tool result: -32042 stays a JSON-RPC
    // error, so there is no failure object (no result, no _meta) and no class on the spans; the
    // spans record the code as the conventions say, in one trace.
    await expectMcpError(
      everything.client.callTool({
        name: 'trigger-url-elicitation',
        arguments: { url: 'https://example.com/authorize', errorPath: true },
      }),
      -32042,
    );
    const client = t
      .finished()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call trigger-url-elicitation');
    expect(client?.attributes['rpc.response.status_code']).toBe('-32042');
    const traceId = client!.spanContext().traceId;
    const span = await serverSpan('everything', 'trigger-url-elicitation', traceId);
    expect(span.attributes['rpc.response.status_code']).toBe('-32042');
    expect(span.attributes['error.type']).toBe('-32042');
    expect(span.attributes['mcp.tool.failure.class']).toBeUndefined();
  });
});
