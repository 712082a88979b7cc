/**
 * The proposal's retry rule as the model note and the retry engine share it: `retryPermissionOf`
 * (the data model), `decide()` on it, and where the adapters find the tool's annotations for the
 * note (`NoteAnnotations`, through `FrameworkToolCalls`): one walk of `tools/list` shared with the
 * engine, only for a retryable failure, the policy's `getToolAnnotations` first.
 */
import { describe, expect, it } from 'vitest';
import {
  NOTE_RETRY_WITH_CONSENT,
  isIdempotent,
  retryPermissionOf,
  toolFailure,
  type ToolRetryHints,
} from '@omcp/tool-failure';
import { NoteAnnotations } from '../../src/frameworks/core.js';
import { FrameworkToolCalls } from '../../src/frameworks/tool-calls.js';
import { decide, DEFAULT_RETRY_LIMITS } from '../../src/retry/index.js';
import { createToolRetry } from '../../src/retry/with-tool-retry.js';

const payment = () =>
  toolFailure({
    class: 'reliability',
    code: 'retryable_transient_error',
    retryable: true,
    retryNotBefore: Date.UTC(2026, 11, 3, 10, 0, 5),
    correlationId: 'ref-pay',
    message: 'gateway timed out',
  });
const refused = () =>
  toolFailure({ class: 'governance', code: 'approval_required', correlationId: 'ref-gov' });

/** A tools/list that counts its calls, with `send_payment` (not idempotent) and `lookup`. */
function toolList() {
  const pages: unknown[] = [];
  const listTools = () => {
    const page = {
      tools: [
        { name: 'send_payment', inputSchema: {}, annotations: { idempotentHint: false } },
        { name: 'lookup', inputSchema: {}, annotations: { idempotentHint: true } },
      ],
    };
    pages.push(page);
    return Promise.resolve(page);
  };
  return { listTools, pages };
}

const retryLine = (result: unknown): string | undefined =>
  (result as { content: Array<{ text?: string }> }).content
    .map((b) => b.text ?? '')
    .join('\n')
    .split('\n')
    .find((l) => l.startsWith('retry:'));

describe('retryPermissionOf: the one rule', () => {
  it.each([
    ['capability', { class: 'capability' }, { idempotentHint: true }, 'not_reliability'],
    [
      'governance',
      { class: 'governance', retryable: true },
      { idempotentHint: true },
      'not_reliability',
    ],
    ['not retryable', { class: 'reliability' }, { idempotentHint: true }, 'not_retryable'],
    [
      'not idempotent',
      { class: 'reliability', retryable: true },
      { idempotentHint: false },
      'not_idempotent',
    ],
    ['unknown annotations', { class: 'reliability', retryable: true }, undefined, 'not_idempotent'],
    ['null annotations', { class: 'reliability', retryable: true }, null, 'not_idempotent'],
    [
      'read-only only',
      { class: 'reliability', retryable: true },
      { readOnlyHint: true },
      'not_idempotent',
    ],
    ['allowed', { class: 'reliability', retryable: true }, { idempotentHint: true }, 'allowed'],
  ] as const)('%s', (_name, failure, annotations, expected) => {
    expect(retryPermissionOf(failure, annotations)).toBe(expected);
    const hints: ToolRetryHints | null | undefined = annotations;
    expect(isIdempotent(hints)).toBe(hints?.idempotentHint === true);
  });

  it('decide() stops where the rule does not allow, with the same reason', () => {
    const ctx = { attempt: 1, now: 0, elapsedMs: 0, limits: DEFAULT_RETRY_LIMITS };
    const failure = {
      class: 'reliability',
      code: 'c',
      retryable: true,
      correlationId: 'r',
    } as const;
    expect(decide(failure, { ...ctx, annotations: { idempotentHint: false } })).toMatchObject({
      action: 'stop',
      reason: 'not_idempotent',
    });
    expect(decide(failure, { ...ctx, annotations: { idempotentHint: true } }).action).toBe('retry');
  });
});

describe('the adapters’ note follows the tool’s annotations', () => {
  it('send_payment (idempotentHint: false) failing retryable: sent once, the note asks for consent, never "retry: yes"', async () => {
    const { listTools } = toolList();
    const calls = new FrameworkToolCalls(createToolRetry({}), { modelNote: true }, listTools);
    let sent = 0;
    const result = await calls.call({ name: 'send_payment' }, undefined, async () => {
      sent++;
      return payment();
    });
    expect(sent).toBe(1);
    expect(retryLine(result)).toBe(
      `retry: ${NOTE_RETRY_WITH_CONSENT}, not before 2026-12-03T10:00:05.000Z`,
    );
  });

  it('the same failure of an idempotent tool says yes; with retry: false too (one walk of tools/list)', async () => {
    const { listTools, pages } = toolList();
    const calls = new FrameworkToolCalls(undefined, { modelNote: true, retry: false }, listTools);
    const first = await calls.call({ name: 'lookup' }, undefined, async () => payment());
    expect(retryLine(first)).toBe('retry: yes, not before 2026-12-03T10:00:05.000Z');
    const second = await calls.call({ name: 'send_payment' }, undefined, async () => payment());
    expect(retryLine(second)).toMatch(/^retry: only with the user's consent/);
    expect(pages).toHaveLength(1);
  });

  it('looks nothing up for a failure whose note the annotations cannot change', async () => {
    const { listTools, pages } = toolList();
    const calls = new FrameworkToolCalls(undefined, { modelNote: true }, listTools);
    expect(retryLine(await calls.call({ name: 'lookup' }, undefined, async () => refused()))).toBe(
      'retry: no',
    );
    expect(pages).toHaveLength(0);
  });

  it('takes the policy’s getToolAnnotations first, and counts a lookup that throws as unknown', async () => {
    const { listTools, pages } = toolList();
    const says = new NoteAnnotations(
      { getToolAnnotations: () => ({ idempotentHint: true }) },
      {},
      () => listTools(),
    );
    expect(await says.of('send_payment', payment())).toEqual({
      annotations: { idempotentHint: true },
    });
    expect(pages).toHaveLength(0);
    const broken = new NoteAnnotations({}, {}, () => Promise.reject(new Error('gone')));
    expect((await broken.of('send_payment', payment())).annotations).toBeUndefined();
    const none = new NoteAnnotations(undefined, {}, undefined);
    expect((await none.of('send_payment', payment())).annotations).toBeUndefined();
  });
});
