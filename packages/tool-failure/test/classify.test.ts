import { describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  DEFAULT_CLASSIFICATION,
  ToolFailureError,
  classifyError,
  parseRetryAfter,
} from '../src/index.js';
import { tryClassifier } from '../src/classify.js';

const NOW = 1_800_000_000_000;
const now = (): number => NOW;

function netError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
}

describe('classifyError()', () => {
  it('takes a ToolFailureError as given', () => {
    const err = new ToolFailureError({
      class: 'governance',
      code: 'policy_blocked',
      agentGuidance: 'Ask an admin.',
    });
    expect(classifyError(err)).toEqual({
      class: 'governance',
      code: 'policy_blocked',
      agentGuidance: 'Ask an admin.',
    });
  });

  it.each([
    [-32700, 'capability', 'invalid_input'],
    [-32600, 'capability', 'invalid_input'],
    [-32601, 'capability', 'capability_unsupported'],
    [-32602, 'capability', 'invalid_input'],
    [-32002, 'capability', 'resource_not_found'],
    [-32042, 'governance', 'user_action_required'],
    [-32020, 'capability', 'invalid_input'],
    [-32021, 'capability', 'capability_unsupported'],
    [-32022, 'capability', 'capability_unsupported'],
    [-32001, 'reliability', 'timeout'],
    [-32603, 'reliability', 'internal_error'],
  ])('maps MCP protocol error %i to %s/%s', (code, cls, failureCode) => {
    expect(classifyError(new McpError(code, 'x'))).toMatchObject({ class: cls, code: failureCode });
  });

  it.each(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_SOCKET'])(
    'treats Node network error %s as a retryable reliability failure',
    (code) => {
      expect(classifyError(netError(code))).toEqual({
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
      });
    },
  );

  it('follows the cause chain (fetch failed → ECONNREFUSED)', () => {
    const err = new TypeError('fetch failed', { cause: netError('ECONNREFUSED') });
    expect(classifyError(err)).toMatchObject({ class: 'reliability', retryable: true });
  });

  it('treats timeouts as retryable and aborts as not', () => {
    expect(
      classifyError(AbortSignal.timeout(0).reason ?? new DOMException('t', 'TimeoutError')),
    ).toMatchObject({ class: 'reliability' });
    expect(classifyError(new DOMException('t', 'TimeoutError'))).toEqual({
      class: 'reliability',
      code: 'timeout',
      retryable: true,
    });
    expect(classifyError(new DOMException('a', 'AbortError'))).toEqual({
      class: 'reliability',
      code: 'cancelled',
      retryable: false,
    });
  });

  it.each([
    [401, 'governance', 'auth_required'],
    [403, 'governance', 'permission_denied'],
    [404, 'capability', 'resource_not_found'],
    [400, 'capability', 'invalid_input'],
    [451, 'governance', 'policy_blocked'],
    [500, 'reliability', 'internal_error'],
  ])('maps HTTP status %i to %s/%s', (status, cls, code) => {
    expect(classifyError(Object.assign(new Error('http'), { status }))).toMatchObject({
      class: cls,
      code,
    });
    expect(classifyError(Object.assign(new Error('http'), { response: { status } }))).toMatchObject(
      { class: cls, code },
    );
  });

  it('turns Retry-After on 429/503 into retryNotBefore (seconds and HTTP date)', () => {
    const e429 = Object.assign(new Error('slow down'), {
      status: 429,
      headers: new Headers({ 'Retry-After': '7' }),
    });
    expect(classifyError(e429, { now })).toEqual({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
      retryNotBefore: NOW + 7_000,
    });
    const date = new Date(NOW + 60_000).toUTCString();
    const e503 = Object.assign(new Error('busy'), {
      statusCode: 503,
      response: { headers: { 'retry-after': date } },
    });
    expect(classifyError(e503, { now })).toMatchObject({ retryNotBefore: NOW + 60_000 });
    const noHeader = Object.assign(new Error('busy'), { status: 503 });
    expect(classifyError(noHeader, { now })).not.toHaveProperty('retryNotBefore');
  });

  it('treats schema validation errors as invalid_input', () => {
    const zodError = z.object({ n: z.number() }).safeParse({ n: 'x' }).error;
    expect(classifyError(zodError)).toEqual({ class: 'capability', code: 'invalid_input' });
  });

  it('gives unknown errors a default that never invites a retry', () => {
    for (const err of [
      new Error('boom'),
      'a string',
      42,
      null,
      undefined,
      { weird: true },
      Symbol('s'),
    ]) {
      const c = classifyError(err);
      expect(c).toEqual(DEFAULT_CLASSIFICATION);
      expect(c.retryable).not.toBe(true);
    }
  });

  it('survives hostile errors', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(classifyError(hostile)).toEqual(DEFAULT_CLASSIFICATION);
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(classifyError(cyclic)).toEqual(DEFAULT_CLASSIFICATION);
  });

  it('lets a configured classifier override, and falls back when it declines or throws', () => {
    const classifier = (e: unknown) =>
      e instanceof RangeError
        ? { class: 'capability' as const, code: 'quota_exceeded' }
        : undefined;
    expect(classifyError(new RangeError('q'), { classifier })).toEqual({
      class: 'capability',
      code: 'quota_exceeded',
    });
    expect(classifyError(netError('EPIPE'), { classifier })).toMatchObject({
      class: 'reliability',
      retryable: true,
    });
    expect(
      classifyError(new Error('x'), {
        classifier: () => {
          throw new Error('bad hook');
        },
      }),
    ).toEqual(DEFAULT_CLASSIFICATION);
  });
});

describe('parseRetryAfter()', () => {
  it('reads delta-seconds, HTTP dates and rejects garbage', () => {
    expect(parseRetryAfter('0', NOW)).toBe(NOW);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(NOW + 120_000);
    expect(parseRetryAfter(new Date(NOW - 5_000).toUTCString(), NOW)).toBe(NOW);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('-3', NOW)).toBeUndefined();
  });
});

describe('tryClassifier()', () => {
  it("returns what the user's classifier says", () => {
    const said = { class: 'governance', code: 'policy_blocked' } as const;
    expect(tryClassifier(() => said, new Error('x'))).toBe(said);
  });

  it('passes the error through and returns undefined when the classifier says nothing', () => {
    const seen: unknown[] = [];
    const err = new Error('x');
    expect(
      tryClassifier((e) => {
        seen.push(e);
        return undefined;
      }, err),
    ).toBeUndefined();
    expect(seen).toEqual([err]);
  });

  it('swallows a throwing classifier', () => {
    expect(
      tryClassifier(() => {
        throw new Error('broken');
      }, new Error('x')),
    ).toBeUndefined();
  });
});
