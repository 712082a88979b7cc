/**
 * The proxy in 2026-07-28 mode inside an instrumented process: its per-request SDK 2.x server
 * answers `server/discover` with the upstream's capabilities as they came. The server-side
 * instrumentation, which declares the extension for the servers it instruments, declares nothing
 * for the proxy's own server: the caller sees what the upstream declared, or nothing.
 */
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as v2Client from '@modelcontextprotocol/client';
import * as v2Server from '@modelcontextprotocol/server';
import { SpanKind } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveStreamableHttp, type ProxyHttpEndpoint } from '../src/http.js';
import { createToolFailureProxy } from '../src/index.js';
import type { ToolFailureProxy } from '../src/types.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';

const t = setupTelemetry({}, { patch: false });
t.instrumentation._patchLoaded({ v1Protocol, v1Mcp, v2: [v2Server, v2Client] });

/** An SDK 1.x upstream in memory, declaring `extensions` itself when given them. */
function upstream(extensions?: Record<string, object>): () => Promise<InMemoryTransport> {
  return async () => {
    const [proxySide, upstreamSide] = InMemoryTransport.createLinkedPair();
    const server = new v1Mcp.McpServer({ name: 'plain-upstream', version: '1.0.0' });
    if (extensions !== undefined) server.server.registerCapabilities({ extensions });
    server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'fine' }] }));
    await server.connect(upstreamSide);
    return proxySide;
  };
}

describe('the proxy in 2026-07-28 mode, instrumented', () => {
  let proxy: ToolFailureProxy | undefined;
  let endpoint: ProxyHttpEndpoint | undefined;
  beforeEach(() => t.reset());
  afterEach(async () => {
    await endpoint?.close();
    await proxy?.close();
  });

  async function discovered(extensions?: Record<string, object>): Promise<unknown> {
    proxy = createToolFailureProxy({ upstream: upstream(extensions), timeoutMs: 5_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { revision: '2026-07-28' });
    const client = new v2Client.Client(
      { name: 'c', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new v2Client.StreamableHTTPClientTransport(new URL(endpoint.url)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.callTool({ name: 'ok', arguments: {} })).isError ?? false).toBe(false);
      return client.getServerCapabilities()?.extensions;
    } finally {
      await client.close();
    }
  }

  it('an upstream that declares nothing: server/discover declares nothing, though its span was made', async () => {
    expect(await discovered()).toBeUndefined();
    // The instrumentation did see the proxy's server answer: it chose not to declare.
    const served = t
      .finished()
      .filter((s) => s.name.startsWith('server/discover') && s.kind === SpanKind.SERVER);
    expect(served.length).toBeGreaterThan(0);
  });

  it("an upstream's own declaration arrives as the upstream made it", async () => {
    expect(await discovered({ [KEY]: { from: 'upstream' } })).toEqual({
      [KEY]: { from: 'upstream' },
    });
  });
});
