/**
 * mcp-use 2.5.2 (test/fixtures/mcp-use/), a framework over SDK 2.x, under the zero-code entry
 * on Node 22 (its engines field). On Node, `import 'mcp-use'` resolves to dist/index-node.js,
 * which bundles its own copy of @modelcontextprotocol/server: no module hook sees it, and the
 * McpServer it builds per request lives in private fields, so neither mode can reach it. Its
 * unbundled build, dist/index.js, imports @modelcontextprotocol/server from node_modules;
 * imported by its path, the zero-code entry instruments it fully (docs/frameworks.md's workaround).
 */
import { SpanKind } from '@opentelemetry/api';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort, otlpTracesEnv } from '../observability/helpers.js';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expectMcpError } from '../helpers/mcp-v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { ensureGateTools, node22, root } from './gate-tools.js';

const t = setupTelemetry();
const fixture = join(root, 'test', 'fixtures', 'mcp-use');

interface FailureObject {
  class: string;
  code: string;
  correlationId: string;
}

let receiver: OtlpReceiver;
const children: ChildProcess[] = [];

/** Starts the fixture server zero-code; resolves with its MCP endpoint once it listens. */
async function startServer(build: 'bundled' | 'unbundled'): Promise<URL> {
  const port = await freePort();
  const child = spawn(
    node22,
    ['--import', '@omcp/instrumentation-mcp/register', join(fixture, 'server.mjs')],
    {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        MCP_USE_BUILD: build,
        MCP_USE_ANONYMIZED_TELEMETRY: 'false',
        ...otlpTracesEnv(receiver.url, `mcp-use-${build}`),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listen: ${stderr}`)), 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('mcp-use-fixture: listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${stderr}`));
    });
  });
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'mcp-use-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

beforeAll(async () => {
  if (!existsSync(join(fixture, 'node_modules', 'mcp-use', 'package.json')))
    throw new Error(
      'test/fixtures/mcp-use is not installed: run node scripts/install-fixtures.mjs',
    );
  await ensureGateTools();
  receiver = await startOtlpReceiver();
}, 300_000);

afterAll(async () => {
  for (const child of children) child.kill();
  await receiver?.close();
});

describe('mcp-use 2.5.2 under the zero-code entry', () => {
  it('its Node build bundles the SDK: no failure object and no server span', async () => {
    const client = await connect(await startServer('bundled'));
    const result = await client.callTool({ name: 'boom', arguments: { n: 1 } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(result._meta?.[KEY]).toBeUndefined();
    const clientSpan = t
      .finished()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call boom');
    // The client side still records the failure, without class or code (none was sent).
    expect(clientSpan?.attributes['error.type']).toBe('tool_error');
    expect(clientSpan?.attributes['mcp.tool.failure.class']).toBeUndefined();
    // The server exported nothing.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.spans.filter((s) => s.serviceName === 'mcp-use-bundled')).toEqual([]);
  });

  it('its unbundled build, imported by path: failure objects, server spans, one trace', async () => {
    const client = await connect(await startServer('unbundled'));
    const serverSpan = async (traceId: string): Promise<ReceivedSpan> => {
      const match = (s: ReceivedSpan): boolean =>
        s.serviceName === 'mcp-use-unbundled' && s.kind === 2 && s.traceId === traceId;
      await receiver.waitFor((spans) => spans.some(match), 10_000);
      return receiver.spans.find(match)!;
    };
    const failing: Array<[Record<string, unknown>, string, string]> = [
      [{ n: 1 }, 'reliability', 'internal_error'],
      [{ n: 'one' }, 'capability', 'invalid_input'],
    ];
    for (const [args, cls, code] of failing) {
      const result = await client.callTool({ name: 'boom', arguments: args });
      const failure = (result._meta as Record<string, FailureObject> | undefined)?.[KEY];
      expect({ class: failure?.class, code: failure?.code }).toEqual({ class: cls, code });
      const span = await serverSpan(failure!.correlationId);
      expect(span.name).toBe('tools/call boom');
      expect(span.attributes['mcp.tool.failure.code']).toBe(code);
      const clientSpan = t
        .finished()
        .find((s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === span.traceId);
      expect(clientSpan?.name).toBe('tools/call boom');
    }
    // SDK 2.x answers an unknown tool with a JSON-RPC error, recorded on the server span.
    await expectMcpError(client.callTool({ name: 'nope', arguments: {} }), -32602);
    const clientSpan = t
      .finished()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call nope');
    const span = await serverSpan(clientSpan!.spanContext().traceId);
    expect(span.attributes['rpc.response.status_code']).toBe('-32602');
    await client.close();
  });
});
