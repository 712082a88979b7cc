import { describe, expect, it } from 'vitest';
import { OpenCalls } from '../../src/server/open-calls.js';

describe('open calls of a transport', () => {
  it('finds, replaces and removes calls by JSON-RPC id, numbers and strings apart', () => {
    const calls = new OpenCalls<string>();
    calls.set(1, 'a');
    calls.set('1', 'b');
    calls.set(2, 'c');
    expect([calls.get(1), calls.get('1'), calls.get(2), calls.get(3)]).toEqual([
      'a',
      'b',
      'c',
      undefined,
    ]);
    calls.set(1, 'a2');
    calls.delete('1');
    calls.delete(99);
    expect(calls.size).toBe(2);
    expect(calls.values().sort()).toEqual(['a2', 'c']);
    calls.clear();
    expect([calls.size, calls.get(1)]).toEqual([0, undefined]);
  });

  it('keeps every call when many are open at once (a map beyond the short list)', () => {
    const calls = new OpenCalls<number>();
    for (let i = 0; i < 1000; i++) calls.set(i, i * 10);
    expect(calls.size).toBe(1000);
    for (let i = 0; i < 1000; i += 2) calls.delete(i);
    expect(calls.size).toBe(500);
    for (let i = 0; i < 1000; i++) expect(calls.get(i)).toBe(i % 2 === 0 ? undefined : i * 10);
    expect(calls.values().reduce((a, b) => a + b, 0)).toBe(
      Array.from({ length: 500 }, (_, k) => (2 * k + 1) * 10).reduce((a, b) => a + b, 0),
    );
  });
});
