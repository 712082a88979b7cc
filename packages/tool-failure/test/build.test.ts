import { trace } from '@opentelemetry/api';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  TOOL_FAILURE_META_KEY,
  ToolFailureError,
  createToolFailure,
  readToolFailure,
  toolFailure,
} from '../src/index.js';
import { setupTracing } from '../../../test/helpers/otel.js';

const { exporter } = setupTracing();
const HEX32 = /^[0-9a-f]{32}$/;

describe('toolFailure()', () => {
  beforeEach(() => exporter.reset());

  it('builds an isError result with a text block and the failure under the meta key', () => {
    const result = toolFailure({
      class: 'governance',
      code: 'auth_required',
      message: 'The account is not connected.',
      agentGuidance: 'Ask the user to reconnect their account.',
    });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'The account is not connected.' }]);
    const failure = result._meta[TOOL_FAILURE_META_KEY] as Record<string, unknown>;
    expect(failure).toMatchObject({
      class: 'governance',
      code: 'auth_required',
      agentGuidance: 'Ask the user to reconnect their account.',
    });
    expect(failure).not.toHaveProperty('retryable');
    expect(readToolFailure(result)).toMatchObject({ status: 'valid', problems: [] });
  });

  it('puts the failure under another key when given one, and only there', () => {
    const metaKey = 'com.example/toolFailure';
    const result = toolFailure({ class: 'capability', code: 'invalid_input' }, { metaKey });
    expect(Object.keys(result._meta)).toEqual([metaKey]);
    expect(readToolFailure(result, { metaKey })).toMatchObject({ status: 'valid' });
    expect(readToolFailure(result).status).toBe('absent');
  });

  it('uses the trace ID of the active span as correlationId', () => {
    const tracer = trace.getTracer('test');
    const { result, traceId } = tracer.startActiveSpan('handler', (span) => {
      const r = toolFailure({ class: 'capability', code: 'invalid_input' });
      span.end();
      return { result: r, traceId: span.spanContext().traceId };
    });
    const failure = result._meta[TOOL_FAILURE_META_KEY] as { correlationId: string };
    expect(failure.correlationId).toBe(traceId);
    expect(failure.correlationId).toMatch(HEX32);
  });

  it('outside any span, makes a fresh 32-hex correlationId each time', () => {
    const a = createToolFailure({ class: 'capability', code: 'invalid_input' }).correlationId;
    const b = createToolFailure({ class: 'capability', code: 'invalid_input' }).correlationId;
    expect(a).toMatch(HEX32);
    expect(b).toMatch(HEX32);
    expect(a).not.toBe(b);
    expect(a).not.toBe('0'.repeat(32));
  });

  it('keeps a correlationId the author gives, and other _meta keys and content', () => {
    const result = toolFailure(
      {
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        correlationId: 'req-1',
      },
      { meta: { 'com.example/x': 1 }, content: [{ type: 'text', text: 'more' }] },
    );
    expect(result._meta['com.example/x']).toBe(1);
    expect(result.content).toHaveLength(2);
    expect((result._meta[TOOL_FAILURE_META_KEY] as { correlationId: string }).correlationId).toBe(
      'req-1',
    );
  });

  it('accepts a Date for retryNotBefore and stores epoch milliseconds', () => {
    const at = new Date('2026-12-01T00:00:00Z');
    const f = createToolFailure({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: at,
    });
    expect(f.retryNotBefore).toBe(at.getTime());
  });

  it('allows unknown codes', () => {
    expect(createToolFailure({ class: 'capability', code: 'quota_model_unavailable' }).code).toBe(
      'quota_model_unavailable',
    );
  });

  it.each([
    [{ class: 'governance', code: 'auth_required', retryable: true }, 'TF-RETRYABLE-CLASS'],
    [{ class: 'capability', code: 'invalid_input', retryable: true }, 'TF-RETRYABLE-CLASS'],
    [
      { class: 'reliability', code: 'retryable_transient_error', retryNotBefore: 5 },
      'TF-RETRY-NOT-BEFORE-RETRYABLE',
    ],
    [
      { class: 'reliability', code: 'x', retryable: true, retryNotBefore: Number.NaN },
      'TF-RETRY-NOT-BEFORE-TYPE',
    ],
    [
      { class: 'reliability', code: 'x', retryable: true, retryNotBefore: -1 },
      'TF-RETRY-NOT-BEFORE-TYPE',
    ],
    [{ class: 'fatal', code: 'x' }, 'TF-CLASS-ENUM'],
    [{ code: 'x' }, 'TF-CLASS-REQUIRED'],
    [{ class: 'capability', code: '' }, 'TF-CODE-REQUIRED'],
    [{ class: 'capability', code: 'auth_required' }, 'TF-CODE-CLASS'],
    [{ class: 'capability', code: 'x', correlationId: '' }, 'TF-CORRELATION-REQUIRED'],
    [{ class: 'capability', code: 'x', agentGuidance: 42 }, 'TF-GUIDANCE-TYPE'],
    [{ class: 'reliability', code: 'x', retryable: 'yes' }, 'TF-RETRYABLE-TYPE'],
  ])('throws a TypeError naming the rule for %j', (init, rule) => {
    expect(() => toolFailure(init as never)).toThrow(TypeError);
    expect(() => toolFailure(init as never)).toThrow(`[${rule}]`);
  });
});

describe('ToolFailureError', () => {
  it('carries its classification and builds the result it stands for', () => {
    const cause = new Error('socket hang up');
    const err = new ToolFailureError({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: 1_000,
      message: 'Search backend busy.',
      agentGuidance: 'Try again in a moment.',
      cause,
    });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ToolFailureError');
    expect(err.cause).toBe(cause);
    expect(err.failureClass).toBe('reliability');
    const result = err.toResult({ correlationId: 'abc' });
    expect(result.content).toEqual([{ type: 'text', text: 'Search backend busy.' }]);
    expect(result._meta[TOOL_FAILURE_META_KEY]).toEqual({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: 1_000,
      correlationId: 'abc',
      agentGuidance: 'Try again in a moment.',
    });
  });

  it('rejects an invalid classification when created', () => {
    expect(
      () => new ToolFailureError({ class: 'governance', code: 'policy_blocked', retryable: true }),
    ).toThrow('[TF-RETRYABLE-CLASS]');
  });
});
