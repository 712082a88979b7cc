/**
 * A real tmcp 1.20.0 `McpServer` (test/fixtures/server-frameworks/) in manual mode:
 * `instrumentServer(server)`, then messages handed to `server.receive()` exactly as tmcp's
 * transports hand them over. The zero-code mode on a real install, over stdio, is in
 * test/frameworks/server-frameworks.test.ts.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { existsSync } from 'node:fs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  TOOL_FAILURE_META_KEY as KEY,
  ToolFailureError,
} from '../../packages/tool-failure/src/index.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();
const TMCP = new URL(
  '../fixtures/server-frameworks/node_modules/tmcp/src/index.js',
  import.meta.url,
);

interface TmcpServer {
  tool(options: Record<string, unknown>, execute?: (input?: unknown) => unknown): void;
  receive(message: unknown, ctx?: unknown): Promise<Record<string, unknown> | undefined>;
}
let McpServer: new (info: unknown, options: unknown) => TmcpServer;

beforeAll(async () => {
  if (!existsSync(TMCP))
    throw new Error(
      'test/fixtures/server-frameworks is not installed: run node scripts/install-fixtures.mjs',
    );
  ({ McpServer } = (await import(TMCP.href)) as { McpServer: typeof McpServer });
});
beforeEach(() => t.reset());

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

/** An instrumented tmcp server with three tools, initialized as a client would. */
async function server(): Promise<TmcpServer> {
  const s = t.instrumentation.instrumentServer(
    new McpServer(
      { name: 'tmcp-manual', version: '1.0.0', description: 'Failing tools.' },
      { capabilities: { tools: {} } },
    ),
  );
  s.tool({ name: 'refuse', description: 'Returns an error result.' }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'no such account' }],
  }));
  s.tool({
    name: 'denied',
    description: 'Throws a ToolFailureError.',
    execute: () => {
      throw new ToolFailureError({ class: 'governance', code: 'permission_denied' });
    },
  });
  s.tool({ name: 'boom', description: 'Throws.' }, async () => {
    throw new Error('database unreachable');
  });
  await s.receive({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    },
  });
  return s;
}

function call(id: number, name: string): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: {},
      _meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
    },
  };
}

function serverSpan(name: string) {
  return t.finished().find((s) => s.kind === SpanKind.SERVER && s.name === name);
}

describe('tmcp 1.20.0, manual mode', () => {
  it('a SERVER span per request, a child of the caller in params._meta, with the failure object of an error result', async () => {
    const s = await server();
    const response = await s.receive(call(1, 'refuse'));
    const span = serverSpan('tools/call refuse');
    expect(serverSpan('initialize')?.attributes['mcp.protocol.version']).toBe('2025-06-18');
    expect(span?.spanContext().traceId).toBe(PARENT_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(span?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'refuse',
      'jsonrpc.request.id': '1',
      'mcp.protocol.version': '2025-06-18',
      'mcp.tool.failure.class': 'reliability',
      'mcp.tool.failure.code': 'internal_error',
      'error.type': 'tool_error',
    });
    expect(response?.result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'no such account' }],
      _meta: {
        [KEY]: {
          class: 'reliability',
          code: 'internal_error',
          retryable: false,
          correlationId: PARENT_TRACE,
        },
      },
    });
  });

  it('a thrown ToolFailureError is its failure result; another thrown error stays tmcp’s JSON-RPC error, on the span', async () => {
    const s = await server();
    const denied = await s.receive(call(2, 'denied'));
    expect((denied?.result as Record<string, Record<string, unknown>>)._meta?.[KEY]).toMatchObject({
      class: 'governance',
      code: 'permission_denied',
      correlationId: PARENT_TRACE,
    });
    const boom = await s.receive(call(3, 'boom'));
    expect(boom?.error).toEqual({ code: -32603, message: 'database unreachable' });
    const span = serverSpan('tools/call boom');
    expect(span?.attributes['rpc.response.status_code']).toBe('-32603');
    expect(span?.attributes['error.type']).toBe('-32603');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    // The thrown error, noted by the tool's wrapper, is the failure log record's exception.
    const records = await t.logRecords();
    expect(records.map((r) => r.attributes['exception.message'])).toContain('database unreachable');
  });

  it('instrumenting twice wraps once; notifications get no span', async () => {
    const s = await server();
    t.instrumentation.instrumentServer(s);
    await s.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await s.receive(call(4, 'refuse'));
    expect(
      t
        .finished()
        .filter((x) => x.kind === SpanKind.SERVER)
        .map((x) => x.name),
    ).toEqual(['initialize', 'tools/call refuse']);
  });
});
