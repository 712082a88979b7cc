/**
 * `recordPeer` (src/client/peer.ts) reads a client's `serverInfo` and capabilities once per
 * object, not on every call: the same objects give the same attributes without being read
 * again, and a new object (a reconnect, a result's own `serverInfo`) is read anew.
 */
import type { Span } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { recordPeer } from '../../src/client/peer.js';
import type { ClientShape } from '../../src/client/shapes.js';
import { TOOL_FAILURE_META_KEY } from '../../packages/tool-failure/src/index.js';

function spanRecorder() {
  const attributes: Record<string, unknown> = {};
  const span = { setAttribute: (k: string, v: unknown) => ((attributes[k] = v), span) };
  return { span: span as unknown as Span, attributes };
}

/** A client shape over a mutable holder, counting how often `name` is read. */
function clientOf(info: Record<string, unknown>, capabilities: Record<string, unknown>) {
  const held = { info, capabilities, reads: 0 };
  const counted = (o: Record<string, unknown>) =>
    new Proxy(o, {
      getOwnPropertyDescriptor(t, k) {
        if (k === 'name') held.reads++;
        return Reflect.getOwnPropertyDescriptor(t, k);
      },
    });
  held.info = counted(info);
  const shape = {
    serverInfoOf: () => held.info,
    serverCapabilitiesOf: () => held.capabilities,
  } as unknown as ClientShape;
  return { held, shape, counted };
}

const call = (shape: ClientShape, maxLength = 64, result: unknown = { content: [] }) => {
  const r = spanRecorder();
  recordPeer(r.span, shape, {}, 'tools/call', result, TOOL_FAILURE_META_KEY, maxLength);
  return r.attributes;
};

describe('recordPeer', () => {
  it('reads the same serverInfo once and records it on every call', () => {
    const declared = { extensions: { [TOOL_FAILURE_META_KEY]: {} } };
    const { held, shape } = clientOf({ name: 'srv', version: '1.2.3' }, declared);
    for (let i = 0; i < 5; i++)
      expect(call(shape)).toEqual({
        'mcp.tool.call.server.name': 'srv',
        'mcp.tool.call.server.version': '1.2.3',
        'mcp.tool.failure.peer_declared': true,
      });
    expect(held.reads).toBe(1);
  });

  it('reads a new serverInfo or capabilities object anew, and truncates to the limit asked', () => {
    const { held, shape, counted } = clientOf({ name: 'first', version: '1' }, {});
    expect(call(shape)['mcp.tool.call.server.name']).toBe('first');
    expect(call(shape)['mcp.tool.failure.peer_declared']).toBe(false);
    held.info = counted({ name: 'second-server', version: '2' });
    held.capabilities = { extensions: { [TOOL_FAILURE_META_KEY]: {} } };
    expect(call(shape)).toMatchObject({
      'mcp.tool.call.server.name': 'second-server',
      'mcp.tool.failure.peer_declared': true,
    });
    expect(call(shape, 6)['mcp.tool.call.server.name']).toHaveLength(6);
  });

  it("prefers a result's own serverInfo in _meta", () => {
    const { shape } = clientOf({ name: 'held', version: '1' }, {});
    const result = { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'r' } } };
    const attrs = call(shape, 64, result);
    expect(attrs['mcp.tool.call.server.name']).toBe('r');
    expect(attrs).not.toHaveProperty('mcp.tool.call.server.version');
  });
});
