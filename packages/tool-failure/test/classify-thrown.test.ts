/**
 * What real tools throw, classified: errors made by Node.js itself (fs, fetch, AbortSignal)
 * wherever they can be made here, and database driver errors in the shape their drivers give
 * them. Each row of docs/classification.md for these kinds has its case here.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../src/index.js';
import { classifyErrorResult } from '../src/from-error-result.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}
async function rejected(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('did not reject');
}
const dir = mkdtempSync(join(tmpdir(), 'omcp-classify-'));
writeFileSync(join(dir, 'file'), 'x');
const pick = ({ class: c, code, retryable }: ReturnType<typeof classifyError>) => ({
  class: c,
  code,
  retryable,
});

describe('classifyError: errors Node.js throws', () => {
  it.each([
    [
      'ENOENT (a missing file)',
      () => readFileSync(join(dir, 'missing')),
      'capability',
      'resource_not_found',
      undefined,
    ],
    [
      'ENOTDIR (a file used as a folder)',
      () => readFileSync(join(dir, 'file', 'x')),
      'capability',
      'resource_not_found',
      undefined,
    ],
    [
      'EISDIR (a folder read as a file)',
      () => readFileSync(dir),
      'capability',
      'invalid_input',
      undefined,
    ],
    [
      'ERR_INVALID_ARG_TYPE',
      () => readFileSync({} as unknown as string),
      'capability',
      'invalid_input',
      undefined,
    ],
  ] as const)('%s', (_label, fn, cls, code, retryable) => {
    const error = thrown(fn);
    expect(pick(classifyError(error))).toEqual({ class: cls, code, retryable });
  });

  it.each([
    ['EACCES', 'governance', 'permission_denied', undefined],
    ['EPERM', 'governance', 'permission_denied', undefined],
    ['EINVAL', 'capability', 'invalid_input', undefined],
    ['EMFILE', 'reliability', 'retryable_transient_error', true],
    ['ENFILE', 'reliability', 'retryable_transient_error', true],
    ['EBUSY', 'reliability', 'retryable_transient_error', true],
    ['EAGAIN', 'reliability', 'retryable_transient_error', true],
    ['ENOSPC', 'reliability', 'resource_exhausted', false],
  ] as const)('%s (a Node system error of that code)', (code, cls, expected, retryable) => {
    // As fs makes them: an Error with errno, code, syscall and path (root bypasses permissions).
    const error = Object.assign(new Error(`${code}: open '/x'`), {
      errno: -1,
      code,
      syscall: 'open',
      path: '/x',
    });
    expect(pick(classifyError(error))).toEqual({ class: cls, code: expected, retryable });
  });

  it("fetch's TypeError with the network error as its cause is transient", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise<void>((r) => server.close(() => r()));
    const error = await rejected(fetch(`http://127.0.0.1:${port}/`));
    expect(error).toBeInstanceOf(TypeError);
    expect(pick(classifyError(error))).toEqual({
      class: 'reliability',
      code: 'retryable_transient_error',
      retryable: true,
    });
  });

  it('AbortSignal.timeout() is a timeout, an abort by the caller a cancellation', async () => {
    const timedOut = await rejected(sleep(1_000, undefined, { signal: AbortSignal.timeout(1) }));
    expect(pick(classifyError(timedOut))).toEqual({
      class: 'reliability',
      code: 'timeout',
      retryable: true,
    });
    const controller = new AbortController();
    const pending = rejected(sleep(1_000, undefined, { signal: controller.signal }));
    controller.abort();
    expect(pick(classifyError(await pending))).toEqual({
      class: 'reliability',
      code: 'cancelled',
      retryable: false,
    });
  });
});

describe('classifyError: database driver errors', () => {
  const pg = (code: string) =>
    Object.assign(new Error('db'), { code, severity: 'ERROR', routine: 'x' });
  it.each([
    [
      'pg 40001 serialization failure',
      pg('40001'),
      'reliability',
      'retryable_transient_error',
      true,
    ],
    ['pg 40P01 deadlock', pg('40P01'), 'reliability', 'retryable_transient_error', true],
    [
      'pg 53300 too many connections',
      pg('53300'),
      'reliability',
      'retryable_transient_error',
      true,
    ],
    ['pg 57P01 admin shutdown', pg('57P01'), 'reliability', 'retryable_transient_error', true],
    ['pg 08006 connection failure', pg('08006'), 'reliability', 'retryable_transient_error', true],
    ['pg 57014 statement timeout', pg('57014'), 'reliability', 'timeout', true],
    ['pg 42501 insufficient privilege', pg('42501'), 'governance', 'permission_denied', undefined],
    ['pg 28P01 invalid password', pg('28P01'), 'governance', 'auth_required', undefined],
    ['pg 23505 unique violation', pg('23505'), 'capability', 'invalid_input', undefined],
    ['pg 22P02 invalid text representation', pg('22P02'), 'capability', 'invalid_input', undefined],
    [
      'mysql ER_LOCK_DEADLOCK',
      Object.assign(new Error('x'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 }),
      'reliability',
      'retryable_transient_error',
      true,
    ],
    [
      'mysql PROTOCOL_CONNECTION_LOST',
      Object.assign(new Error('x'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }),
      'reliability',
      'retryable_transient_error',
      true,
    ],
    [
      'mysql ER_ACCESS_DENIED_ERROR',
      Object.assign(new Error('x'), { code: 'ER_ACCESS_DENIED_ERROR' }),
      'governance',
      'auth_required',
      undefined,
    ],
    [
      'mysql ER_DUP_ENTRY',
      Object.assign(new Error('x'), { code: 'ER_DUP_ENTRY' }),
      'capability',
      'invalid_input',
      undefined,
    ],
    [
      'sqlite SQLITE_BUSY',
      Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
      'reliability',
      'retryable_transient_error',
      true,
    ],
    [
      'sqlite SQLITE_CONSTRAINT_UNIQUE',
      Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }),
      'capability',
      'invalid_input',
      undefined,
    ],
    [
      'sqlite SQLITE_FULL',
      Object.assign(new Error('x'), { code: 'SQLITE_FULL' }),
      'reliability',
      'resource_exhausted',
      false,
    ],
    [
      'MongoNetworkError',
      Object.assign(new Error('x'), { name: 'MongoNetworkError' }),
      'reliability',
      'retryable_transient_error',
      true,
    ],
    [
      'MongoServerError labelled RetryableWriteError',
      Object.assign(new Error('x'), {
        name: 'MongoServerError',
        errorLabels: new Set(['RetryableWriteError']),
      }),
      'reliability',
      'retryable_transient_error',
      true,
    ],
  ] as const)('%s', (_label, error, cls, code, retryable) => {
    expect(pick(classifyError(error))).toEqual({ class: cls, code, retryable });
  });

  it('a five-character code without a driver severity is not read as SQLSTATE', () => {
    expect(classifyError(Object.assign(new Error('x'), { code: '40001' })).code).toBe(
      'internal_error',
    );
  });
});

describe("the SDK's own refusals, by their text", () => {
  const result = (text: string) => ({ isError: true, content: [{ type: 'text', text }] });
  it('SDK 2.x invalid arguments ("Input validation error: ...") are invalid_input, as on 1.x', () => {
    const v2 = classifyErrorResult(
      undefined,
      result('Input validation error: Invalid arguments for tool add: a: expected number'),
      undefined,
    );
    const v1 = classifyErrorResult(
      undefined,
      result('MCP error -32602: Input validation error: Invalid arguments for tool add'),
      undefined,
    );
    expect(pick(v2)).toEqual({ class: 'capability', code: 'invalid_input', retryable: undefined });
    expect(pick(v1)).toEqual(pick(v2));
  });

  it("tmcp's unknown tool and invalid arguments (its own words), and only those texts", () => {
    const classify = (text: string) =>
      pick(classifyErrorResult(undefined, result(text), undefined));
    expect(classify('Tool nope not found')).toEqual({
      class: 'capability',
      code: 'capability_unsupported',
      retryable: undefined,
    });
    expect(classify('Invalid arguments for tool add: [{"path":["a"]}]')).toEqual({
      class: 'capability',
      code: 'invalid_input',
      retryable: undefined,
    });
    // A tool's own text that only starts alike stays the default.
    for (const text of ['Tool nope not found, try later', 'Invalid arguments were logged'])
      expect(classify(text)).toEqual({
        class: 'reliability',
        code: 'internal_error',
        retryable: false,
      });
  });
});
