// The in-flight limits counted in requests (packages/proxy/src/http-admission.ts), directly: what a POST
// holds while read and once admitted, and what it gives back.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../src/http-limits.js';
import { InFlightLimits, requestIdsOf, type SessionCounts } from '../src/http-admission.js';

const limits = { ...DEFAULT_HTTP_LIMITS, maxInFlightPerSession: 3, maxInFlight: 4 };
const session = (): SessionCounts => ({ inFlight: 0, ids: new Set() });

describe('InFlightLimits', () => {
  it('a POST holds one slot while read, one per request once admitted, and gives them back once', () => {
    const table = new InFlightLimits(limits);
    const s = session();
    const hold = table.hold(s);
    expect(s.inFlight).toBe(1);
    expect(table.admit(hold, [1, 2, 3])).toBeUndefined();
    expect(s.inFlight).toBe(3);
    expect([...s.ids]).toEqual([1, 2, 3]);
    expect(table.full(s)).toBe(true);
    table.release(hold);
    table.release(hold);
    expect(s.inFlight).toBe(0);
    expect(s.ids.size).toBe(0);
    expect(table.full(undefined)).toBe(false);
  });

  it('refuses the whole POST: larger than a limit, more than the free slots, a repeated id', () => {
    const table = new InFlightLimits(limits);
    const a = session();
    const tooLarge = table.hold(a);
    expect(table.admit(tooLarge, [1, 2, 3, 4])).toBe('batch_too_large');
    table.release(tooLarge);
    expect(a.inFlight).toBe(0);
    // Session a holds 2 of its 3 slots and 2 of the endpoint's 4.
    expect(table.admit(table.hold(a), [1, 2])).toBeUndefined();
    const moreOfA = table.hold(a);
    expect(table.admit(moreOfA, [3, 4])).toBe('in_flight_limit');
    table.release(moreOfA);
    const b = session();
    const overEndpoint = table.hold(b);
    expect(table.admit(overEndpoint, [1, 2, 3])).toBe('in_flight_limit');
    table.release(overEndpoint);
    const again = table.hold(a);
    expect(table.admit(again, [2])).toBe('duplicate_id');
    table.release(again);
    const inBatch = table.hold(b);
    expect(table.admit(inBatch, [5, 5])).toBe('duplicate_id');
    // 1 and "1" are different JSON-RPC ids, and b's ids are its own.
    expect(table.admit(inBatch, [1, '1'])).toBeUndefined();
    expect(b.inFlight).toBe(2);
  });

  it('counts only requests: notifications and responses in a body carry no id', () => {
    expect(
      requestIdsOf([
        { jsonrpc: '2.0', id: 1, method: 'tools/call' },
        { jsonrpc: '2.0', method: 'notifications/progress' },
        { jsonrpc: '2.0', id: 2, result: {} },
        { jsonrpc: '2.0', id: null, method: 'x' },
        'junk',
      ]),
    ).toEqual([1]);
    expect(requestIdsOf({ jsonrpc: '2.0', id: 'a', method: 'ping' })).toEqual(['a']);
  });
});

describe('InFlightLimits as the admission of one POST', () => {
  it('holds a POST until its response closes, once', () => {
    const table = new InFlightLimits(limits);
    const s = session();
    const res = new EventEmitter();
    table.holdUntilClosed(res, s);
    expect(s.inFlight).toBe(1);
    res.emit('close');
    res.emit('close');
    expect(s.inFlight).toBe(0);
    expect(table.full(undefined)).toBe(false);
  });

  it('admits a parsed body, or refuses it whole with one error per request id', () => {
    const table = new InFlightLimits(limits);
    const s = session();
    const res = new EventEmitter();
    const hold = table.holdUntilClosed(res, s);
    expect(
      table.admitMessage(hold, [
        { jsonrpc: '2.0', id: 1, method: 'tools/call' },
        { jsonrpc: '2.0', method: 'notifications/progress' },
      ]),
    ).toBeUndefined();
    expect([...s.ids]).toEqual([1]);
    const again = table.holdUntilClosed(new EventEmitter(), s);
    const refused = table.admitMessage(again, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(refused?.reason).toBe('duplicate_id');
    expect(JSON.parse(refused!.body)).toEqual([
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: -32600 }) },
    ]);
    const single = table.admitMessage(table.holdUntilClosed(new EventEmitter(), s), {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
    expect(JSON.parse(single!.body)).toMatchObject({ id: 1 });
    res.emit('close');
    expect(s.ids.size).toBe(0);
  });
});
