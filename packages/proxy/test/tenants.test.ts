// Two tenants on one proxy (issue 40): two clients, each with its own token-authorised
// connection, in every HTTP mode the proxy serves (sessionful, stateless, and the endpoint that
// also speaks 2026-07-28, with an SDK 2.4 client pinned to that revision too), over one real
// stdio upstream child (packages/proxy/test/fixtures/tenant-server.mjs).
// Tenant B never receives a notification that belongs to tenant A's subscription or to a task
// A's request created, even while B's is the only request in flight; in the sessionful mode A
// gets them on its own stream. Listed in docs/security.md's attack table.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolFailureProxy } from '../src/index.js';
import { serveStreamableHttp, type ProxyHttpEndpoint } from '../src/http.js';
import type { ProxyHttpOptions, ToolFailureProxy } from '../src/types.js';
import type { Client } from '../../../test/helpers/mcp-v1.js';
import { TOKEN, stdioUpstream, tenant, type Heard } from './tenant-harness.js';

const PRIVATE = 'mem://tenantA-private-doc';

const MODES: Array<[string, ProxyHttpOptions, boolean]> = [
  ['sessionful', {}, true],
  ['stateless', { stateless: true }, false],
  [
    '2026-07-28 (its earlier-revision clients served statelessly)',
    { revision: '2026-07-28' },
    false,
  ],
];

describe.each(MODES)('two tenants, %s', (_mode, options, streams) => {
  let proxy: ToolFailureProxy | undefined;
  let endpoint: ProxyHttpEndpoint | undefined;
  const clients: Client[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await endpoint?.close();
    endpoint = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  async function start(): Promise<string> {
    proxy = createToolFailureProxy({ upstream: stdioUpstream(), timeoutMs: 10_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { ...options, authToken: TOKEN });
    return endpoint.url;
  }

  it('an update of the resource A subscribed to never reaches B, while B’s is the only request in flight', async () => {
    const url = await start();
    const a = await tenant(url, 'tenant-a');
    const b = await tenant(url, 'tenant-b');
    clients.push(a.client, b.client);
    await a.client.subscribeResource({ uri: PRIVATE });
    // B's call makes the upstream send the update while B's request is the only one in flight.
    const touched = await b.client.callTool({ name: 'touch', arguments: { uri: PRIVATE } });
    expect(touched.content).toEqual([{ type: 'text', text: 'touched' }]);
    const updated = (h: Heard[]) => h.filter((n) => n.method === 'notifications/resources/updated');
    expect(b.heard).toEqual([]);
    if (streams) await expect.poll(() => updated(a.heard), { timeout: 5_000 }).toHaveLength(1);
    else await new Promise((r) => setTimeout(r, 300));
    expect(b.heard).toEqual([]);
    if (streams) expect(updated(a.heard)[0]?.params).toEqual({ uri: PRIVATE });
  });

  it('the notifications of a task A’s request created never reach B', async () => {
    const url = await start();
    const a = await tenant(url, 'tenant-a');
    const b = await tenant(url, 'tenant-b');
    clients.push(a.client, b.client);
    const started = (await a.client.callTool({ name: 'start_task', arguments: {} })) as {
      task?: { taskId?: string };
    };
    const taskId = started.task?.taskId;
    expect(taskId).toMatch(/^task-/);
    await b.client.callTool({ name: 'task_note', arguments: { taskId } });
    expect(b.heard).toEqual([]);
    if (streams) await expect.poll(() => a.heard.length, { timeout: 5_000 }).toBe(2);
    else await new Promise((r) => setTimeout(r, 300));
    expect(b.heard).toEqual([]);
    if (streams)
      expect(a.heard.map((n) => n.method).sort()).toEqual([
        'notifications/message',
        'notifications/tasks/status',
      ]);
  });
});

describe('subscriptions of two tenants to one resource (sessionful)', () => {
  it('each subscriber hears the update; one unsubscribing keeps the other’s subscription, upstream too', async () => {
    const proxy = createToolFailureProxy({ upstream: stdioUpstream(), timeoutMs: 10_000 });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { authToken: TOKEN });
    const a = await tenant(endpoint.url, 'tenant-a');
    const b = await tenant(endpoint.url, 'tenant-b');
    const c = await tenant(endpoint.url, 'tenant-c');
    const updates = (h: Heard[]) => h.filter((n) => n.method === 'notifications/resources/updated');
    const shared = 'mem://shared-doc';
    try {
      await a.client.subscribeResource({ uri: shared });
      await b.client.subscribeResource({ uri: shared });
      await c.client.callTool({ name: 'touch', arguments: { uri: shared } });
      await expect.poll(() => updates(a.heard).length, { timeout: 5_000 }).toBe(1);
      await expect.poll(() => updates(b.heard).length, { timeout: 5_000 }).toBe(1);
      // A leaves the subscription: B's stays, and so does the upstream's (it lists what it has).
      await a.client.unsubscribeResource({ uri: shared });
      const listed = await c.client.listResources();
      expect(listed.resources.map((r) => r.uri)).toContain(shared);
      await c.client.callTool({ name: 'touch', arguments: { uri: shared } });
      await expect.poll(() => updates(b.heard).length, { timeout: 5_000 }).toBe(2);
      expect(updates(a.heard)).toHaveLength(1);
      expect(c.heard).toEqual([]);
      // B's session ends (DELETE): no subscriber is left, and the upstream's subscription ends.
      await b.transport.terminateSession();
      await b.client.close();
      await expect
        .poll(async () => (await c.client.listResources()).resources.map((r) => r.uri), {
          timeout: 5_000,
        })
        .not.toContain(shared);
    } finally {
      for (const t of [a, b, c]) await t.client.close().catch(() => undefined);
      await endpoint.close();
      await proxy.close();
    }
  });
});

describe('two tenants, one of them a 2026-07-28 client (SDK 2.4, pinned to the revision)', () => {
  it('B (2026-07-28) hears on its own request stream neither the update of A’s resource nor the notifications of A’s task', async () => {
    const proxy = createToolFailureProxy({ upstream: stdioUpstream(), timeoutMs: 10_000 });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, {
      revision: '2026-07-28',
      authToken: TOKEN,
    });
    const modern = async (name: string) => {
      const heard: Heard[] = [];
      const client = new ModernClient(
        { name, version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      client.fallbackNotificationHandler = async (n) => {
        heard.push(n as Heard);
      };
      await client.connect(
        new ModernTransport(new URL(endpoint.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      return { client, heard };
    };
    // The revision has no resources/subscribe (its clients refuse to send it): A is a 2025-era
    // client, which the endpoint serves statelessly; B speaks 2026-07-28.
    const a = await tenant(endpoint.url, 'tenant-a');
    const b = await modern('tenant-b');
    try {
      await a.client.subscribeResource({ uri: PRIVATE });
      const started = (await a.client.callTool({ name: 'start_task', arguments: {} })) as {
        task?: { taskId?: string };
      };
      expect(started.task?.taskId).toMatch(/^task-/);
      await b.client.callTool({ name: 'touch', arguments: { uri: PRIVATE } });
      await b.client.callTool({ name: 'task_note', arguments: { taskId: started.task?.taskId } });
      expect(b.heard).toEqual([]);
    } finally {
      await a.client.close();
      await b.client.close();
      await endpoint.close();
      await proxy.close();
    }
  });
});
