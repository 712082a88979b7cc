// The pure decisions behind the proxy's fault classes (packages/proxy/src/forward.ts) and the route of an
// upstream notification (packages/proxy/src/downstreams.ts), directly.
import { describe, expect, it } from 'vitest';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { routeOf, type Downstream, type RelatedSender } from '../src/downstreams.js';
import { nestedBeyond, transportProblemOf } from '../src/forward.js';
import { isTransientNetworkCode } from '../../tool-failure/src/classify.js';

describe('nestedBeyond', () => {
  it('counts levels of arrays and objects, not scalars, without recursion', () => {
    expect(nestedBeyond('x', 0)).toBe(false);
    expect(nestedBeyond({ a: 1 }, 1)).toBe(false);
    expect(nestedBeyond({ a: [1] }, 1)).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    expect(nestedBeyond(deep, 1000)).toBe(true);
    expect(nestedBeyond(deep, 100_000)).toBe(false);
  });
});

describe('transportProblemOf', () => {
  const fetchFailed = (code: string) =>
    new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

  it('a refused connection was never delivered; a reset may have been', () => {
    expect(transportProblemOf(fetchFailed('ECONNREFUSED'), isTransientNetworkCode)).toEqual({
      kind: 'unavailable',
      detail: 'fetch failed (ECONNREFUSED)',
    });
    expect(transportProblemOf(fetchFailed('UND_ERR_SOCKET'), isTransientNetworkCode)).toEqual({
      kind: 'lost',
      detail: 'fetch failed',
    });
  });

  it('a Streamable HTTP 404 (the upstream forgot the session) is unavailable; anything else is not a transport problem', () => {
    const gone = Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint'), {
      code: 404,
    });
    expect(transportProblemOf(gone, isTransientNetworkCode)?.kind).toBe('unavailable');
    expect(transportProblemOf(new Error('boom'), isTransientNetworkCode)).toBeUndefined();
    expect(transportProblemOf('not an error', isTransientNetworkCode)).toBeUndefined();
  });
});

describe('routeOf', () => {
  const downstream = (requests: number): Downstream => ({
    server: {} as Server,
    active: new Set(
      Array.from({ length: requests }, (): RelatedSender => ({ sendNotification: async () => {} })),
    ),
  });

  it('list-changed to all; another to the one connection with requests in flight, on its request when it has one', () => {
    const idle = downstream(0);
    const busy = downstream(1);
    const all = new Set([idle, busy]);
    expect(routeOf('notifications/tools/list_changed', all)).toEqual({ to: 'all' });
    expect(routeOf('notifications/message', all)).toMatchObject({
      to: 'request',
      downstream: busy,
    });
    const twice = downstream(2);
    expect(routeOf('notifications/message', new Set([idle, twice]))).toMatchObject({
      to: 'connection',
      downstream: twice,
    });
  });

  it('nowhere when several connections could own it; the only connection there is owns it', () => {
    expect(routeOf('notifications/message', new Set([downstream(1), downstream(1)]))).toEqual({
      to: 'nowhere',
      busy: 2,
    });
    expect(routeOf('notifications/message', new Set([downstream(0), downstream(0)]))).toEqual({
      to: 'nowhere',
      busy: 0,
    });
    const only = downstream(0);
    expect(routeOf('notifications/message', new Set([only]))).toEqual({
      to: 'connection',
      downstream: only,
    });
  });
});
