/**
 * Results with `outputs` (SEP-3279, result variants) through the real SDK 2.4 packages of
 * test/fixtures/sdk-2.4.0: what the SDK does to such a result, and what the instrumentation
 * records of it, over in-memory (2025-11-25) and Streamable HTTP at 2026-07-28.
 *
 * What the SDK does (found here): its result schemas are loose objects, so `outputs`, `isError`
 * and the whole `_meta` reach the caller; the server adds `content: []` (its rule for a result
 * without `content`) before sending, so the caller gets both fields.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as ClientTypes from '@modelcontextprotocol/client';
import type * as ServerTypes from '@modelcontextprotocol/server';
import { SpanKind } from '@opentelemetry/api';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ATTR_MCP_TOOL_CALL_OUTPUTS,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_SOURCE,
} from '../../src/semconv.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/constants.js';
import { toolFailureNote } from '../../packages/tool-failure/src/model-note.js';
import type { ToolFailure } from '../../packages/tool-failure/src/types.js';
import { withToolRetry } from '../../src/retry/index.js';
import { FrameworkToolCalls } from '../../src/frameworks/tool-calls.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { serveOnLoopback } from '../helpers/web-handler.js';
import {
  FAILURE,
  apps,
  conversational,
} from '../../packages/tool-failure/test/sep-3279-examples.js';

type ServerModule = typeof ServerTypes;
type ClientModule = typeof ClientTypes;

const fixture = createRequire(new URL('../fixtures/sdk-2.4.0/package.json', import.meta.url));
const load = async <M>(name: string): Promise<M> =>
  (await import(pathToFileURL(fixture.resolve(name)).href)) as M;
const S = await load<ServerModule>('@modelcontextprotocol/server');
const C = await load<ClientModule>('@modelcontextprotocol/client');

const t = setupTelemetry({ toolResultOutputs: true }, { patch: false });
t.instrumentation._patchLoaded({ v2: [S, C] });

/** What a caller gets: the result as the SDK client hands it over. */
interface Received {
  content?: unknown[];
  outputs?: Array<{ audience: string; format: string; content?: unknown[] }>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A McpServer whose tools answer with the given results, one after the other per tool. */
function serverAnswering(answers: Record<string, () => unknown>, idempotent = false) {
  const server = new S.McpServer({ name: 'variants', version: '1.0.0' });
  for (const [name, answer] of Object.entries(answers))
    server.registerTool(
      name,
      { annotations: { idempotentHint: idempotent } },
      // The SDK's types know no `outputs`: the tool returns what SEP-3279 draws.
      async () => answer() as Awaited<ReturnType<Parameters<typeof server.registerTool>[2]>>,
    );
  return server;
}

async function inMemory(server: InstanceType<ServerModule['McpServer']>) {
  const [a, b] = S.InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new C.Client({ name: 'caller', version: '1.0.0' });
  await client.connect(a);
  return client;
}

const toolSpans = (kind: SpanKind) =>
  t.finished().filter((s) => s.kind === kind && s.name.startsWith('tools/call'));

beforeEach(() => {
  t.reset();
  t.instrumentation.setConfig({ toolResultOutputs: true });
});

describe('SDK 2.4 and an outputs result with a failure (in memory)', () => {
  it('MCP Apps example: outputs, isError and all of _meta survive; content: [] is added', async () => {
    const client = await inMemory(serverAnswering({ search_customers: apps }));
    const got = (await client.callTool({ name: 'search_customers', arguments: {} })) as Received;
    await client.close();
    const sent = apps();
    expect(got.outputs).toEqual(sent.outputs);
    expect(got.isError).toBe(true);
    expect(got.content).toEqual([]);
    expect(got._meta?.[KEY]).toEqual(FAILURE);
    expect(got._meta?.['io.modelcontextprotocol/ui']).toEqual(
      sent._meta['io.modelcontextprotocol/ui'],
    );
  });

  it('a low-level Server: the same, outputs and _meta kept, content: [] added', async () => {
    const server = new S.Server(
      { name: 'variants', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler('tools/list', async () => ({ tools: [] }));
    // The SDK's types know no `outputs`: the handler returns what SEP-3279 draws.
    server.setRequestHandler('tools/call', async () => apps() as never);
    const [a, b] = S.InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new C.Client({ name: 'caller', version: '1.0.0' });
    await client.connect(a);
    const got = (await client.callTool({ name: 'search_customers', arguments: {} })) as Received;
    await client.close();
    expect(got).toMatchObject({
      outputs: apps().outputs,
      content: [],
      isError: true,
      _meta: apps()._meta,
    });
    expect(toolSpans(SpanKind.CLIENT)[0]?.attributes[ATTR_MCP_TOOL_CALL_OUTPUTS]).toEqual([
      'assistant/content',
      'io.modelcontextprotocol/ui/structured',
    ]);
  });

  it('both spans record the failure and the outputs; the server says the failure is its own', async () => {
    const client = await inMemory(serverAnswering({ search_customers: apps }));
    await client.callTool({ name: 'search_customers', arguments: {} });
    await client.close();
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const [span] = toolSpans(kind);
      expect(span?.attributes).toMatchObject({
        'mcp.protocol.version': '2025-11-25',
        [ATTR_MCP_TOOL_FAILURE_CLASS]: 'reliability',
        [ATTR_MCP_TOOL_FAILURE_CODE]: 'upstream_unavailable',
        [ATTR_MCP_TOOL_CALL_OUTPUTS]: [
          'assistant/content',
          'io.modelcontextprotocol/ui/structured',
        ],
      });
    }
    expect(toolSpans(SpanKind.SERVER)[0]?.attributes[ATTR_MCP_TOOL_FAILURE_SOURCE]).toBe('server');
  });

  it('an outputs error result without a failure object gets one in _meta; outputs stay as sent', async () => {
    const bare = () => {
      const { _meta: _dropped, ...rest } = conversational();
      return rest;
    };
    const client = await inMemory(serverAnswering({ search_customers: bare }));
    const got = (await client.callTool({ name: 'search_customers', arguments: {} })) as Received;
    await client.close();
    expect(got.outputs).toEqual(bare().outputs);
    const failure = got._meta?.[KEY] as ToolFailure;
    expect(failure).toMatchObject({ class: 'reliability', code: 'internal_error' });
    const [server] = toolSpans(SpanKind.SERVER);
    expect(failure.correlationId).toBe(server?.spanContext().traceId);
    expect(server?.attributes[ATTR_MCP_TOOL_FAILURE_SOURCE]).toBe('instrumentation');
  });

  it('switch off: the failure is still recorded, the outputs are not', async () => {
    t.instrumentation.setConfig({});
    const client = await inMemory(serverAnswering({ search_customers: apps }));
    await client.callTool({ name: 'search_customers', arguments: {} });
    await client.close();
    const [span] = toolSpans(SpanKind.CLIENT);
    expect(span?.attributes[ATTR_MCP_TOOL_FAILURE_CLASS]).toBe('reliability');
    expect(span?.attributes[ATTR_MCP_TOOL_CALL_OUTPUTS]).toBeUndefined();
  });

  it('the retry engine decides on the failure beside outputs: retried, then the outputs success', async () => {
    const answers = [
      conversational,
      conversational,
      () => ({
        outputs: [
          {
            audience: 'assistant',
            format: 'content',
            content: [{ type: 'text', text: '37 found' }],
          },
        ],
      }),
    ];
    let n = 0;
    const client = await inMemory(
      serverAnswering({ search_customers: () => (answers[n++] ?? answers[2]!)() }, true),
    );
    const report = await withToolRetry(client, {
      retryBudget: false,
      backoff: { initialDelayMs: 1, maxDelayMs: 1 },
    }).callToolWithRetry({ name: 'search_customers', arguments: {} });
    await client.close();
    expect(report).toMatchObject({ outcome: 'success', attempts: 3 });
    expect((report.result as Received).outputs?.[0]?.content).toEqual([
      { type: 'text', text: '37 found' },
    ]);
  });

  it('the model note of a framework adapter goes into the assistant output of the SDK result', async () => {
    const client = await inMemory(serverAnswering({ search_customers: apps }));
    const calls = new FrameworkToolCalls(
      undefined,
      { modelNote: true, toolResultOutputs: true },
      () => client.listTools(),
    );
    const got = (await calls.call({ name: 'search_customers', arguments: {} }, undefined, (p) =>
      client.callTool(p),
    )) as Received;
    await client.close();
    const note = toolFailureNote(FAILURE as ToolFailure);
    const text = `The interactive table could not be loaded: the directory is busy.\n\n${note}`;
    expect(got.outputs?.[0]?.content).toEqual([{ type: 'text', text }]);
    expect(got.outputs?.[1]).toEqual(apps().outputs[1]);
    // The SDK's empty content is what the framework hands its model: now the model's part.
    expect(got.content).toEqual([{ type: 'text', text }]);
  });
});

describe('SDK 2.4 at 2026-07-28 over Streamable HTTP', () => {
  const { url } = serveOnLoopback(() => {
    const handler = S.createMcpHandler(() => serverAnswering({ search_customers: conversational }));
    return (request) => Promise.resolve(handler.fetch(request));
  });

  it('the outputs result and its failure reach the caller, both spans record them', async () => {
    const client = new C.Client(
      { name: 'caller', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new C.StreamableHTTPClientTransport(url()));
    const got = (await client.callTool({ name: 'search_customers', arguments: {} })) as Received;
    await client.close();
    expect(got.outputs).toEqual(conversational().outputs);
    expect(got.content).toEqual([]);
    expect(got._meta?.[KEY]).toEqual(FAILURE);
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER])
      expect(toolSpans(kind)[0]?.attributes).toMatchObject({
        'mcp.protocol.version': '2026-07-28',
        [ATTR_MCP_TOOL_FAILURE_CODE]: 'upstream_unavailable',
        [ATTR_MCP_TOOL_CALL_OUTPUTS]: ['assistant/content'],
      });
  });
});
