import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY, readToolFailure } from '../src/index.js';
import { readToolFailureMeta } from '../src/read.js';

const valid = {
  class: 'reliability',
  code: 'retryable_transient_error',
  retryable: true,
  retryNotBefore: 1_764_000_000_000,
  correlationId: '4bf92f3577b34da6a3ce929d0e0e4736',
  agentGuidance: 'Try again shortly.',
};

const errorResult = (failure: unknown): unknown => ({
  content: [{ type: 'text', text: 'x' }],
  isError: true,
  _meta: { [KEY]: failure },
});

const rulesOf = (r: ReturnType<typeof readToolFailure>): string[] =>
  r.problems.map((p) => p.rule).sort();

describe('readToolFailure()', () => {
  it('reads a valid failure and keeps unknown keys untouched', () => {
    const extra = { nested: [1, 2] };
    const reading = readToolFailure(errorResult({ ...valid, 'vendor.example/x': extra }));
    expect(reading.status).toBe('valid');
    if (reading.status !== 'valid') return;
    expect(reading.failure).toEqual({ ...valid, 'vendor.example/x': extra });
    expect(reading.failure['vendor.example/x']).toBe(extra);
    expect(reading.problems).toEqual([]);
  });

  it('reads the proposal example object (governance / auth_required)', () => {
    const example = {
      class: 'governance',
      code: 'auth_required',
      correlationId: 'req_8f2c1a-attempt-3',
      agentGuidance: 'Ask the user to reconnect their account, then retry the same call.',
    };
    expect(readToolFailure(errorResult(example))).toEqual({
      status: 'valid',
      failure: example,
      problems: [],
    });
  });

  it.each([
    null,
    undefined,
    0,
    'x',
    [],
    [1],
    true,
    {},
    { isError: true },
    { _meta: {} },
    { _meta: null },
  ])('reports absence for %j without throwing', (input) => {
    expect(readToolFailure(input).status).toBe('absent');
  });

  it('honours a configured meta key', () => {
    const result = { isError: true, _meta: { 'com.example/failure': valid } };
    expect(readToolFailure(result).status).toBe('absent');
    expect(readToolFailure(result, { metaKey: 'com.example/failure' }).status).toBe('valid');
  });

  const table: Array<[string, unknown, string[], 'valid' | 'invalid' | 'absent']> = [
    [
      'missing correlationId',
      { class: 'capability', code: 'invalid_input' },
      ['TF-CORRELATION-REQUIRED'],
      'invalid',
    ],
    [
      'empty correlationId',
      { ...valid, correlationId: '' },
      ['TF-CORRELATION-REQUIRED'],
      'invalid',
    ],
    [
      'numeric correlationId',
      { ...valid, correlationId: 7 },
      ['TF-CORRELATION-REQUIRED'],
      'invalid',
    ],
    ['class outside the enum', { ...valid, class: 'transient' }, ['TF-CLASS-ENUM'], 'invalid'],
    ['class missing', { code: 'x', correlationId: 'c' }, ['TF-CLASS-REQUIRED'], 'invalid'],
    ['code missing', { class: 'capability', correlationId: 'c' }, ['TF-CODE-REQUIRED'], 'invalid'],
    [
      'code not a string',
      { class: 'capability', code: 3, correlationId: 'c' },
      ['TF-CODE-REQUIRED'],
      'invalid',
    ],
    [
      'retryable on governance',
      { class: 'governance', code: 'policy_blocked', retryable: true, correlationId: 'c' },
      ['TF-RETRYABLE-CLASS'],
      'invalid',
    ],
    [
      'retryable on capability',
      { class: 'capability', code: 'x', retryable: true, correlationId: 'c' },
      ['TF-RETRYABLE-CLASS'],
      'invalid',
    ],
    [
      'retryable not boolean',
      { ...valid, retryable: 'true' },
      ['TF-RETRYABLE-TYPE', 'TF-RETRY-NOT-BEFORE-RETRYABLE'],
      'invalid',
    ],
    [
      'retryNotBefore a string',
      { ...valid, retryNotBefore: '2026-12-01' },
      ['TF-RETRY-NOT-BEFORE-TYPE'],
      'invalid',
    ],
    [
      'retryNotBefore infinite',
      { ...valid, retryNotBefore: Infinity },
      ['TF-RETRY-NOT-BEFORE-TYPE'],
      'invalid',
    ],
    [
      'retryNotBefore negative',
      { ...valid, retryNotBefore: -5 },
      ['TF-RETRY-NOT-BEFORE-TYPE'],
      'invalid',
    ],
    [
      'retryNotBefore without retryable',
      { class: 'reliability', code: 'x', retryNotBefore: 5, correlationId: 'c' },
      ['TF-RETRY-NOT-BEFORE-RETRYABLE'],
      'valid',
    ],
    [
      'agentGuidance not a string',
      { ...valid, agentGuidance: { text: 'hi' } },
      ['TF-GUIDANCE-TYPE'],
      'invalid',
    ],
    [
      'baseline code under the wrong class',
      { class: 'capability', code: 'auth_required', correlationId: 'c' },
      ['TF-CODE-CLASS'],
      'valid',
    ],
    ['failure is an array', [], ['TF-FAILURE-OBJECT'], 'invalid'],
    ['failure is a string', 'reliability', ['TF-FAILURE-OBJECT'], 'invalid'],
    ['failure is null', null, ['TF-FAILURE-OBJECT'], 'invalid'],
    [
      'everything wrong',
      { class: 1, code: '', retryable: 2, retryNotBefore: 'x', agentGuidance: 1 },
      [
        'TF-CLASS-ENUM',
        'TF-CODE-REQUIRED',
        'TF-CORRELATION-REQUIRED',
        'TF-GUIDANCE-TYPE',
        'TF-RETRY-NOT-BEFORE-TYPE',
        'TF-RETRYABLE-TYPE',
      ],
      'invalid',
    ],
  ];

  it.each(table)('%s', (_name, failure, rules, status) => {
    const reading = readToolFailure(errorResult(failure));
    expect(reading.status).toBe(status);
    expect(rulesOf(reading)).toEqual([...rules].sort());
  });

  it('flags the key on a result without isError', () => {
    const reading = readToolFailure({ content: [], _meta: { [KEY]: valid } });
    expect(reading.status).toBe('valid');
    expect(rulesOf(reading)).toEqual(['TF-ONLY-ON-ERROR']);
  });

  it('flags a _meta that is not an object', () => {
    expect(rulesOf(readToolFailure({ isError: true, _meta: 'x' }))).toEqual(['TF-META-OBJECT']);
    expect(rulesOf(readToolFailure({ isError: true, _meta: [1] }))).toEqual(['TF-META-OBJECT']);
  });

  it('never runs getters: a throwing accessor is reported, not triggered', () => {
    let touched = false;
    const failure = { ...valid };
    Object.defineProperty(failure, 'code', {
      enumerable: true,
      get() {
        touched = true;
        throw new Error('gotcha');
      },
    });
    const reading = readToolFailure(errorResult(failure));
    expect(reading.status).toBe('invalid');
    expect(rulesOf(reading)).toContain('TF-UNREADABLE');
    expect(touched).toBe(false);

    const meta = {};
    Object.defineProperty(meta, KEY, {
      enumerable: true,
      get: () => {
        touched = true;
        return valid;
      },
    });
    expect(readToolFailure({ isError: true, _meta: meta }).status).toBe('invalid');
    expect(touched).toBe(false);
  });

  it('survives proxies that throw on every trap', () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor: () => {
          throw new Error('x');
        },
        ownKeys: () => {
          throw new Error('x');
        },
        get: () => {
          throw new Error('x');
        },
      },
    );
    expect(readToolFailure(hostile).status).toBe('invalid');
    expect(readToolFailure(errorResult(hostile)).problems.map((p) => p.rule)).toEqual([
      'TF-UNREADABLE',
    ]);
  });

  it('keeps a __proto__ key as data and never touches Object.prototype', () => {
    const parsed: unknown = JSON.parse(
      `{"isError":true,"_meta":{"${KEY}":{"class":"capability","code":"x","correlationId":"c","__proto__":{"polluted":true}}}}`,
    );
    const reading = readToolFailure(parsed);
    expect(reading.status).toBe('valid');
    if (reading.status !== 'valid') return;
    expect(Object.getPrototypeOf(reading.failure)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(reading.failure, '__proto__')?.value).toEqual({
      polluted: true,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never throws and never pollutes, and reads alike from either entry, over 10,000 generated inputs', () => {
    const fieldValue = fc.oneof(
      fc.anything({
        withObjectString: true,
        withNullPrototype: true,
        withTypedArray: true,
        withSparseArray: true,
        maxDepth: 3,
      }),
      fc.string({ maxLength: 70_000 }).filter((s) => s.length > 0 || true),
      fc.constantFrom(
        'capability',
        'reliability',
        'governance',
        'auth_required',
        '',
        '__proto__',
        'constructor',
      ),
      fc.double(),
    );
    const failureArb = fc.oneof(
      fc.dictionary(
        fc.oneof(
          fc.constantFrom(
            'class',
            'code',
            'retryable',
            'retryNotBefore',
            'correlationId',
            'agentGuidance',
            '__proto__',
            'constructor',
            'toString',
          ),
          fc.string(),
        ),
        fieldValue,
        { maxKeys: 10 },
      ),
      fc.anything(),
    );
    const resultArb = fc.oneof(
      fc.record(
        {
          isError: fc.oneof(fc.boolean(), fc.anything()),
          _meta: fc.oneof(fc.dictionary(fc.constant(KEY), failureArb), fc.anything()),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
      fc.jsonValue().map((v) => ({ isError: true, _meta: { [KEY]: v } })),
    );
    // Every own key of Object.prototype, whatever its name, before and after each reading.
    const protoKeys = (): string[] => Reflect.ownKeys(Object.prototype).map(String).sort();
    const before = protoKeys();
    fc.assert(
      fc.property(resultArb, (input) => {
        const reading = readToolFailure(input);
        expect(['absent', 'valid', 'invalid']).toContain(reading.status);
        for (const p of reading.problems) expect(p.rule).toMatch(/^TF-[A-Z-]+$/);
        if (reading.status === 'valid')
          expect(reading.problems.every((p) => p.severity === 'warning')).toBe(true);
        expect(protoKeys()).toEqual(before);
      }),
      { numRuns: 10_000 },
    );
    // The instrumentation's client reads `_meta` and `isError` once and hands them to
    // readToolFailureMeta: on every input where it would call it, the reading is the public one.
    const own = (obj: object, key: string): unknown => {
      const d = Object.getOwnPropertyDescriptor(obj, key);
      return d !== undefined && 'value' in d ? d.value : undefined;
    };
    fc.assert(
      fc.property(resultArb, (input) => {
        if (typeof input !== 'object' || input === null || Array.isArray(input)) return;
        const meta = own(input, '_meta');
        if (meta === undefined) return;
        expect(readToolFailureMeta(meta, own(input, 'isError') === true, KEY)).toEqual(
          readToolFailure(input),
        );
      }),
      { numRuns: 10_000 },
    );
  });
});
