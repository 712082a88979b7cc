/**
 * Conformance, part 1: one test per normative statement of the tool-failure proposal
 * about the data model. Titles start with the rule id; docs/conformance.md traces them.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  BASELINE_CODES,
  TOOL_FAILURE_META_KEY,
  createToolFailure,
  readToolFailure,
  toolFailure,
} from '../../../tool-failure/src/index.js';

const validate = new Ajv2020({ strict: true }).compile(
  JSON.parse(
    readFileSync(
      new URL('../../../tool-failure/schema/tool-failure.schema.json', import.meta.url),
      'utf8',
    ),
  ) as object,
);
const wrap = (failure: unknown, isError = true): unknown => ({
  content: [{ type: 'text', text: 'failed' }],
  isError,
  _meta: { [TOOL_FAILURE_META_KEY]: failure },
});
const rules = (input: unknown): string[] => readToolFailure(input).problems.map((p) => p.rule);
const base = { class: 'capability', code: 'invalid_input', correlationId: 'c-1' };

describe('tool-failure data model', () => {
  it('[TF-PLACEMENT] a tool failure travels as a CallToolResult with isError, never as a JSON-RPC error', () => {
    const result = toolFailure({
      class: 'capability',
      code: 'invalid_input',
      message: 'n must be a number',
    });
    expect(result.isError).toBe(true);
    expect(result).not.toHaveProperty('error');
    expect(CallToolResultSchema.safeParse(result).success).toBe(true);
  });

  it('[TF-META-KEY] the classification is carried under _meta["io.modelcontextprotocol/toolFailure"]', () => {
    expect(TOOL_FAILURE_META_KEY).toBe('io.modelcontextprotocol/toolFailure');
    const result = toolFailure({ class: 'capability', code: 'invalid_input' });
    expect(Object.keys(result._meta)).toEqual([TOOL_FAILURE_META_KEY]);
  });

  it('[TF-CLASS-REQUIRED] class is present', () => {
    const { class: _omit, ...noClass } = base;
    expect(rules(wrap(noClass))).toContain('TF-CLASS-REQUIRED');
    expect(validate(noClass)).toBe(false);
    expect(() => createToolFailure(noClass as never)).toThrow('[TF-CLASS-REQUIRED]');
  });

  it('[TF-CLASS-ENUM] class is one of capability, reliability, governance', () => {
    for (const cls of ['capability', 'reliability', 'governance']) {
      expect(readToolFailure(wrap({ ...base, class: cls, code: 'x' })).status).toBe('valid');
    }
    expect(rules(wrap({ ...base, class: 'Capability' }))).toContain('TF-CLASS-ENUM');
    expect(validate({ ...base, class: 'transient' })).toBe(false);
    expect(() => createToolFailure({ ...base, class: 'transient' } as never)).toThrow(
      '[TF-CLASS-ENUM]',
    );
  });

  it('[TF-CODE-REQUIRED] code is a non-empty string', () => {
    expect(rules(wrap({ ...base, code: undefined }))).toContain('TF-CODE-REQUIRED');
    expect(rules(wrap({ ...base, code: 404 }))).toContain('TF-CODE-REQUIRED');
    expect(validate({ ...base, code: '' })).toBe(false);
  });

  it('[TF-CODE-OPEN] code is an open string: servers may define new codes', () => {
    const custom = { ...base, class: 'reliability', code: 'gpu_pool_drained' };
    expect(readToolFailure(wrap(custom))).toMatchObject({ status: 'valid', problems: [] });
    expect(validate(custom)).toBe(true);
    expect(createToolFailure({ class: 'reliability', code: 'gpu_pool_drained' }).code).toBe(
      'gpu_pool_drained',
    );
  });

  it('[TF-CODE-BASELINE] the baseline vocabulary is the one the proposal recommends', () => {
    expect(BASELINE_CODES).toEqual({
      capability: ['capability_unsupported', 'resource_not_found', 'invalid_input'],
      reliability: ['retryable_transient_error'],
      governance: ['auth_required', 'permission_denied', 'policy_blocked', 'user_action_required'],
    });
    for (const [cls, codes] of Object.entries(BASELINE_CODES)) {
      for (const code of codes) {
        expect(readToolFailure(toolFailure({ class: cls as 'capability', code }))).toMatchObject({
          status: 'valid',
          problems: [],
        });
      }
    }
  });

  it('[TF-CODE-CLASS] additional codes stay consistent with a class: a baseline code under another class is flagged', () => {
    expect(rules(wrap({ ...base, class: 'reliability', code: 'auth_required' }))).toEqual([
      'TF-CODE-CLASS',
    ]);
    expect(() => createToolFailure({ class: 'reliability', code: 'auth_required' })).toThrow(
      '[TF-CODE-CLASS]',
    );
  });

  it('[TF-RETRYABLE-CLASS] retryable is absent or false unless the class is reliability', () => {
    for (const cls of ['capability', 'governance'] as const) {
      expect(rules(wrap({ ...base, class: cls, code: 'x', retryable: true }))).toContain(
        'TF-RETRYABLE-CLASS',
      );
      expect(validate({ ...base, class: cls, code: 'x', retryable: true })).toBe(false);
      expect(
        readToolFailure(wrap({ ...base, class: cls, code: 'x', retryable: false })).status,
      ).toBe('valid');
      expect(() => createToolFailure({ class: cls, code: 'x', retryable: true })).toThrow(
        '[TF-RETRYABLE-CLASS]',
      );
    }
    expect(
      readToolFailure(wrap({ ...base, class: 'reliability', code: 'x', retryable: true })).status,
    ).toBe('valid');
  });

  it('[TF-RETRYABLE-TYPE] retryable, when present, is a boolean', () => {
    expect(rules(wrap({ ...base, class: 'reliability', retryable: 1 }))).toContain(
      'TF-RETRYABLE-TYPE',
    );
    expect(validate({ ...base, class: 'reliability', retryable: 'true' })).toBe(false);
  });

  it('[TF-RETRY-NOT-BEFORE-TYPE] retryNotBefore is Unix epoch milliseconds', () => {
    const ok = {
      ...base,
      class: 'reliability',
      code: 'x',
      retryable: true,
      retryNotBefore: 1_764_547_200_000,
    };
    expect(readToolFailure(wrap(ok)).status).toBe('valid');
    for (const bad of ['1764547200000', Number.NaN, -1, Infinity, null]) {
      expect(rules(wrap({ ...ok, retryNotBefore: bad }))).toContain('TF-RETRY-NOT-BEFORE-TYPE');
    }
    expect(validate({ ...ok, retryNotBefore: 'tomorrow' })).toBe(false);
  });

  it('[TF-RETRY-NOT-BEFORE-RETRYABLE] retryNotBefore is only meaningful when retryable is true', () => {
    const reading = readToolFailure(
      wrap({ ...base, class: 'reliability', code: 'x', retryNotBefore: 5 }),
    );
    expect(reading.status).toBe('valid');
    expect(reading.problems).toEqual([
      expect.objectContaining({ rule: 'TF-RETRY-NOT-BEFORE-RETRYABLE', severity: 'warning' }),
    ]);
    expect(() => createToolFailure({ class: 'reliability', code: 'x', retryNotBefore: 5 })).toThrow(
      '[TF-RETRY-NOT-BEFORE-RETRYABLE]',
    );
  });

  it('[TF-CORRELATION-REQUIRED] correlationId is REQUIRED within the failure object', () => {
    const { correlationId: _omit, ...noId } = base;
    expect(rules(wrap(noId))).toContain('TF-CORRELATION-REQUIRED');
    expect(readToolFailure(wrap(noId)).status).toBe('invalid');
    expect(validate(noId)).toBe(false);
    expect(createToolFailure({ class: 'capability', code: 'x' }).correlationId).toMatch(
      /^[0-9a-f]{32}$/,
    );
  });

  it('[TF-CORRELATION-OPAQUE] the default correlationId is opaque: it carries no request data', () => {
    const secret = 'user=alice@example.com token=sk-live-123';
    const failure = createToolFailure({
      class: 'governance',
      code: 'auth_required',
      message: secret,
      agentGuidance: secret,
    });
    expect(failure.correlationId).toMatch(/^[0-9a-f]{32}$/);
    expect(failure.correlationId).not.toContain('alice');
  });

  it('[TF-GUIDANCE-TYPE] agentGuidance is a short string kept apart from the diagnostic content', () => {
    const result = toolFailure({
      class: 'governance',
      code: 'auth_required',
      message: 'OAuth token for calendar expired at 10:02; refresh failed with invalid_grant.',
      agentGuidance: 'Ask the user to reconnect their calendar.',
    });
    const failure = result._meta[TOOL_FAILURE_META_KEY] as { agentGuidance: string };
    expect(failure.agentGuidance).toBe('Ask the user to reconnect their calendar.');
    expect(result.content[0]).toEqual({
      type: 'text',
      text: 'OAuth token for calendar expired at 10:02; refresh failed with invalid_grant.',
    });
    expect(rules(wrap({ ...base, agentGuidance: ['x'] }))).toContain('TF-GUIDANCE-TYPE');
  });

  it('[TF-ONLY-ON-ERROR] the failure object appears only on results with isError: true', () => {
    expect(rules(wrap(base, false))).toEqual(['TF-ONLY-ON-ERROR']);
    expect(toolFailure({ class: 'capability', code: 'x' }).isError).toBe(true);
  });

  it('[TF-ADDITIVE] the extension is additive: the result parses as a plain CallToolResult with _meta intact', () => {
    const result = toolFailure(
      { class: 'capability', code: 'capability_unsupported' },
      { meta: { 'com.example/trace': 'x' } },
    );
    const parsed = CallToolResultSchema.parse(result);
    expect(parsed.isError).toBe(true);
    expect(parsed.content).toEqual(result.content);
    expect(parsed._meta).toEqual(result._meta);
  });

  it('[TF-META-OBJECT] a _meta that is not an object is reported, not thrown', () => {
    expect(rules({ isError: true, _meta: 'oops' })).toEqual(['TF-META-OBJECT']);
  });

  it('[TF-FAILURE-OBJECT] a failure value that is not an object is reported as invalid', () => {
    expect(readToolFailure(wrap('governance'))).toMatchObject({ status: 'invalid' });
    expect(rules(wrap(42))).toEqual(['TF-FAILURE-OBJECT']);
  });

  it('[TF-UNREADABLE] a failure object with accessors is reported without running them', () => {
    let runs = 0;
    const failure = Object.defineProperty({ ...base }, 'class', {
      enumerable: true,
      get: () => {
        runs++;
        throw new Error('x');
      },
    });
    expect(readToolFailure(wrap(failure))).toMatchObject({ status: 'invalid' });
    expect(rules(wrap(failure))).toContain('TF-UNREADABLE');
    expect(runs).toBe(0);
  });
});
