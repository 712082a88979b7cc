// What leaves the proxy is the upstream's result object itself: on the wire it serialises to the
// upstream's text, top-level key order included, and keys the SDK knows (progressToken,
// related-task) stay where the upstream put them.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolFailureProxy, type ToolFailureProxy } from '../src/index.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';
import { scriptedUpstream } from './harness.js';

setupTelemetry();

// Integer-like keys are enumerated first by every JavaScript object, whatever the text said;
// `__proto__` cannot be an own key of a spread. Both are outside what a relay in JS can keep.
const key = fc
  .oneof(
    fc.string({ maxLength: 10 }),
    fc.constantFrom('progressToken', 'io.modelcontextprotocol/related-task', 'content', 'isError'),
  )
  .filter((k) => !/^(0|[1-9]\d*)$/.test(k) && k !== '__proto__');
const value = fc.jsonValue({ maxDepth: 2 });
const KNOWN_META: Record<string, unknown> = {
  progressToken: 'token-7',
  'io.modelcontextprotocol/related-task': { taskId: 'task-7' },
};
/** An object whose keys come in a random order, `_meta` (with a failure object) among them. */
const result = fc
  .tuple(
    fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 5 }),
    fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 5 }),
    fc.nat(5),
    fc.nat(5),
  )
  .map(([top, meta, metaAt, failureAt]) => {
    // The SDK itself checks the values of the keys it knows: they get valid ones here.
    const metaEntries: Array<[string, unknown]> = meta
      .filter(([k]) => k !== KEY)
      .map(([k, v]) => [k, KNOWN_META[k] ?? v]);
    metaEntries.splice(failureAt, 0, [
      KEY,
      { class: 'reliability', code: 'timeout', retryable: true, correlationId: 'c-1' },
    ]);
    const entries: Array<[string, unknown]> = top.filter(
      ([k]) => k !== '_meta' && k !== 'content' && k !== 'isError',
    );
    entries.push(['content', []], ['isError', true]);
    entries.splice(metaAt, 0, ['_meta', Object.fromEntries(metaEntries)]);
    return Object.fromEntries(entries) as Record<string, unknown>;
  });

describe('property: a relayed result keeps the upstream key order', () => {
  let current: Record<string, unknown> = { content: [] };
  const upstream = scriptedUpstream(() => ({ result: current }));
  let proxy: ToolFailureProxy;
  let downstream: InMemoryTransport;
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  let nextId = 1;

  const call = (method: string, params: Record<string, unknown>): Promise<JSONRPCMessage> => {
    const id = nextId++;
    const answer = new Promise<JSONRPCMessage>((resolve) => waiting.set(id, resolve));
    void downstream.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    return answer;
  };

  beforeAll(async () => {
    proxy = createToolFailureProxy({ upstream: upstream.factory });
    const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
    downstream = clientSide;
    // A client without the SDK: what arrives is the message object as the proxy sent it.
    downstream.onmessage = (message) => {
      if ('id' in message && typeof message.id === 'number') waiting.get(message.id)?.(message);
    };
    await downstream.start();
    await proxy.connect(proxySide);
    await call('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    await downstream.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });

  afterAll(async () => {
    await downstream.close();
    await proxy.close();
  });

  it('serialises to exactly the upstream text, for results with keys in any order', async () => {
    await fc.assert(
      fc.asyncProperty(result, async (r) => {
        current = r;
        const answer = await call('tools/call', { name: 'any', arguments: {} });
        expect('result' in answer).toBe(true);
        expect(JSON.stringify((answer as { result: unknown }).result)).toBe(JSON.stringify(r));
      }),
      { numRuns: 500 },
    );
  });
});
