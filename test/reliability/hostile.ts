import fc from 'fast-check';

/** Number of generated cases: FUZZ_RUNS (npm run fuzz) or the small slice for npm test. */
export function fuzzRuns(defaultRuns: number): number {
  const n = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(n) && n > 0 ? n : defaultRuns;
}

const KEYS = ['__proto__', 'constructor', 'prototype', '_meta', 'isError', 'content', 'class'];

/** JSON-like values with hostile keys, wrong types, long strings and deep nesting. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, undefined, true, 0, -1, NaN, Infinity, ''),
    fc.string(),
    fc.string({ minLength: 10_000, maxLength: 70_000, unit: 'grapheme-ascii' }).map((s) => s),
    fc.integer(),
    tie('object'),
    fc.array(tie('value'), { maxLength: 4 }),
  ),
  object: fc
    .array(
      fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 })), tie('value')),
      {
        maxLength: 6,
      },
    )
    .map((entries) => {
      // JSON.parse makes "__proto__" an own data property, as a hostile peer's JSON would.
      const out = JSON.parse('{}') as Record<string, unknown>;
      for (const [k, v] of entries)
        Object.defineProperty(out, k, {
          value: v,
          enumerable: true,
          configurable: true,
          writable: true,
        });
      return out;
    }),
})).value;

/** A chain of `depth` nested objects. */
export function deep(depth: number): unknown {
  let v: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) v = { _meta: v, content: [v] };
  return v;
}

/**
 * Objects that fight back: throwing getters and Proxies whose every trap throws. Generated as
 * thunks (fast-check itself probes generated values); `materialize` builds them.
 */
export const hostileObject: fc.Arbitrary<() => unknown> = fc.oneof(
  fc
    .constantFrom('_meta', 'isError', 'content', 'io.modelcontextprotocol/toolFailure', 'class')
    .map(
      (key) => () =>
        Object.defineProperty({ content: [] }, key, {
          enumerable: true,
          get() {
            throw new Error(`getter ${key}`);
          },
        }),
    ),
  fc.constant(
    () =>
      new Proxy(
        {},
        {
          get() {
            throw new Error('proxy get');
          },
          ownKeys() {
            throw new Error('proxy ownKeys');
          },
          getOwnPropertyDescriptor() {
            throw new Error('proxy descriptor');
          },
          has() {
            throw new Error('proxy has');
          },
          getPrototypeOf() {
            throw new Error('proxy prototype');
          },
        },
      ),
  ),
  fc.integer({ min: 50, max: 3000 }).map((d) => () => deep(d)),
);

/** Builds a generated value: thunks from `hostileObject` are called. */
export function materialize(v: unknown): unknown {
  return typeof v === 'function' ? (v as () => unknown)() : v;
}

/** Snapshot of Object.prototype's own keys, to prove nothing was written there. */
export function prototypeKeys(): string[] {
  return Reflect.ownKeys(Object.prototype).map(String).sort();
}
