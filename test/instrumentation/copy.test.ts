import { describe, expect, it } from 'vitest';
import { assignOwn, copyWith } from '../../packages/tool-failure/src/wire/safe.js';

const byName = (a: string | symbol, b: string | symbol): number =>
  String(a).localeCompare(String(b));

describe('copies made on the hot path match object spread', () => {
  const sym = Symbol('s');
  const cases: Array<() => Record<string | symbol, unknown>> = [
    () => ({ name: 'x', arguments: { a: 1 } }),
    () => ({ name: 'x', _meta: { keep: true } }),
    () => JSON.parse('{"name":"x","__proto__":{"polluted":true}}') as Record<string, unknown>,
    () => ({ [sym]: 1, plain: 2 }),
    () => Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } }),
    () => Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false }),
  ];

  it('copyWith(obj, key, value) equals { ...obj, [key]: value }, own __proto__ keys included', () => {
    for (const make of cases) {
      const source = make();
      const copy = copyWith(source, '_meta', { traceparent: 't' });
      const spread = { ...source, _meta: { traceparent: 't' } };
      expect(Reflect.ownKeys(copy).sort(byName)).toEqual(Reflect.ownKeys(spread).sort(byName));
      for (const k of Reflect.ownKeys(spread))
        expect(Object.getOwnPropertyDescriptor(copy, k)).toEqual(
          Object.getOwnPropertyDescriptor(spread, k),
        );
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect(copy).not.toBe(source);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('assignOwn(target, extra) equals { ...target, ...extra }, extra winning', () => {
    for (const make of cases) {
      const extra = make();
      const target = { traceparent: 'ours', name: 'ours' };
      const spread = { ...target, ...extra };
      const merged = assignOwn({ ...target }, extra);
      expect(Reflect.ownKeys(merged).sort(byName)).toEqual(Reflect.ownKeys(spread).sort(byName));
      for (const k of Reflect.ownKeys(spread))
        expect((merged as Record<string | symbol, unknown>)[k]).toBe(
          (spread as Record<string | symbol, unknown>)[k],
        );
      expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    }
  });
});
