import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TOOL_FAILURE_META_KEY,
  createToolFailure,
  readToolFailure,
  toolFailure,
} from '../src/index.js';

const schema: object = JSON.parse(
  readFileSync(new URL('../schema/tool-failure.schema.json', import.meta.url), 'utf8'),
);
const ajv = new Ajv2020({ strict: true, allErrors: true });
const validate = ajv.compile(schema);

describe('tool-failure JSON Schema (draft 2020-12)', () => {
  it('is exported under the package subpath', () => {
    const require = createRequire(import.meta.url);
    expect(require('@omcp/tool-failure/schema/tool-failure.schema.json')).toEqual(schema);
  });

  it('accepts the proposal example object (governance / auth_required)', () => {
    const example = {
      class: 'governance',
      code: 'auth_required',
      correlationId: 'req_8f2c1a-attempt-3',
      agentGuidance: 'Ask the user to reconnect their account, then retry the same call.',
    };
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it('accepts what the builder makes, for every class', () => {
    const built = [
      toolFailure({ class: 'capability', code: 'capability_unsupported' }),
      toolFailure({
        class: 'governance',
        code: 'permission_denied',
        retryable: false,
        agentGuidance: 'Ask an admin.',
      }),
      toolFailure({
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        retryNotBefore: Date.now() + 1000,
      }),
    ];
    for (const result of built) {
      expect(validate(result._meta[TOOL_FAILURE_META_KEY]), JSON.stringify(validate.errors)).toBe(
        true,
      );
    }
  });

  it.each([
    ['missing correlationId', { class: 'capability', code: 'x' }],
    ['class outside the enum', { class: 'fatal', code: 'x', correlationId: 'c' }],
    ['empty code', { class: 'capability', code: '', correlationId: 'c' }],
    [
      'retryable on governance',
      { class: 'governance', code: 'x', retryable: true, correlationId: 'c' },
    ],
    [
      'retryable not a boolean',
      { class: 'reliability', code: 'x', retryable: 'yes', correlationId: 'c' },
    ],
    [
      'retryNotBefore a string',
      {
        class: 'reliability',
        code: 'x',
        retryable: true,
        retryNotBefore: 'soon',
        correlationId: 'c',
      },
    ],
    [
      'agentGuidance a number',
      { class: 'reliability', code: 'x', agentGuidance: 1, correlationId: 'c' },
    ],
    ['not an object', ['capability']],
  ])('rejects an invalid sample: %s', (_name, sample) => {
    expect(validate(sample)).toBe(false);
  });

  it('agrees with readToolFailure on the MUST rules for generated objects', () => {
    const arb = fc.record(
      {
        class: fc.constantFrom('capability', 'reliability', 'governance', 'other'),
        code: fc.oneof(fc.constantFrom('invalid_input', 'x', ''), fc.integer()),
        retryable: fc.oneof(fc.boolean(), fc.constant('true')),
        correlationId: fc.oneof(fc.constant('c'), fc.constant(''), fc.constant(3)),
        agentGuidance: fc.oneof(fc.string(), fc.integer()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(arb, (failure) => {
        const reading = readToolFailure({
          isError: true,
          _meta: { [TOOL_FAILURE_META_KEY]: failure },
        });
        expect(validate(failure)).toBe(reading.status === 'valid');
      }),
      { numRuns: 2_000 },
    );
  });

  it('the built failure object needs no help from the schema to be valid', () => {
    expect(validate(createToolFailure({ class: 'capability', code: 'resource_not_found' }))).toBe(
      true,
    );
  });
});
