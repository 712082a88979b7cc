import { describe, expect, it } from 'vitest';
import { createToolRetry } from '../../src/retry/with-tool-retry.js';
import { ATTEMPT_META_KEY } from '../../src/shared/attempt-meta.js';
import { toolFailure } from '../../packages/tool-failure/src/build.js';
import { FrameworkToolCalls } from '../../src/frameworks/tool-calls.js';
import { withNoteInResult as withNoteInContent } from '../../packages/tool-failure/src/model-note.js';
import type { SendToolCall } from '../../src/frameworks/tool-calls.js';

const busy = () =>
  toolFailure({
    class: 'reliability',
    code: 'upstream_unavailable',
    retryable: true,
    correlationId: 'ref-busy',
    message: 'busy',
  });
const refused = () =>
  toolFailure({
    class: 'governance',
    code: 'approval_required',
    correlationId: 'ref-gov',
    agentGuidance: 'Ask for approval.',
    message: 'needs approval',
  });
const ok = { content: [{ type: 'text', text: 'fine' }] };

/** Tools as a framework's list gives them: all idempotent, so reliability failures may retry. */
const listTools = () =>
  Promise.resolve({
    tools: [{ name: 't', inputSchema: {}, annotations: { idempotentHint: true } }],
  });

/** A send that answers from `answers` in turn (a function throws), recording what it was given. */
function scripted(answers: Array<unknown | (() => never)>) {
  const sent: Array<{ params: unknown; options: unknown }> = [];
  const send: SendToolCall = async (params, options) => {
    sent.push({ params, options });
    const next = answers[sent.length - 1];
    return typeof next === 'function' ? (next as () => never)() : next;
  };
  return { send, sent };
}

const engine = () => createToolRetry({ random: () => 0 });

describe('FrameworkToolCalls', () => {
  it('retries a retryable reliability failure through the framework’s own send, options passed as given', async () => {
    const calls = new FrameworkToolCalls(engine(), {}, listTools);
    const { send, sent } = scripted([busy(), ok]);
    const signal = new AbortController().signal;
    const result = await calls.call(
      { name: 't', arguments: { a: 1 } },
      { signal, timeout: 5 },
      send,
    );
    expect(result).toBe(ok);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual({
      params: { name: 't', arguments: { a: 1 } },
      options: { signal, timeout: 5 },
    });
    // The retry says which attempt it is, in a copy of _meta.
    expect(sent[1]!.params).toMatchObject({ _meta: { [ATTEMPT_META_KEY]: 2 } });
  });

  it('hands a governance failure on after one send', async () => {
    const calls = new FrameworkToolCalls(engine(), {}, listTools);
    const { send, sent } = scripted([refused(), ok]);
    const result = await calls.call({ name: 't' }, undefined, send);
    expect(sent).toHaveLength(1);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'needs approval' }],
    });
  });

  it('ends with the failure last answered when a retry throws, so a framework’s own retry of thrown errors cannot follow', async () => {
    const calls = new FrameworkToolCalls(engine(), {}, listTools);
    const first = busy();
    const { send, sent } = scripted([
      first,
      () => {
        throw new Error('Connection closed');
      },
    ]);
    await expect(calls.call({ name: 't' }, undefined, send)).resolves.toBe(first);
    expect(sent).toHaveLength(2);
  });

  it('rethrows an error of the first attempt (nothing was answered), and any error once the caller aborted', async () => {
    const calls = new FrameworkToolCalls(engine(), {}, listTools);
    const gone = scripted([
      () => {
        throw new Error('Connection closed');
      },
    ]);
    await expect(calls.call({ name: 't' }, undefined, gone.send)).rejects.toThrow(
      'Connection closed',
    );

    const controller = new AbortController();
    const aborted = scripted([
      busy(),
      () => {
        controller.abort(new Error('stop'));
        throw new Error('stop');
      },
    ]);
    await expect(
      calls.call({ name: 't' }, { signal: controller.signal }, aborted.send),
    ).rejects.toThrow('stop');
  });

  it('sends once and changes nothing with retry: false and no modelNote', async () => {
    const calls = new FrameworkToolCalls(undefined, {}, listTools);
    const answer = busy();
    const { send, sent } = scripted([answer, ok]);
    await expect(calls.call({ name: 't' }, undefined, send)).resolves.toBe(answer);
    expect(sent).toHaveLength(1);
  });

  it('adds the note to what it returns with modelNote: true, the result it received left as it was', async () => {
    const calls = new FrameworkToolCalls(undefined, { modelNote: true }, listTools);
    const answer = refused();
    const { send } = scripted([answer]);
    const result = (await calls.call({ name: 't' }, undefined, send)) as typeof answer;
    expect(result.content[0]!.text).toBe(
      'needs approval\n\n[tool failure]\nclass: governance\ncode: approval_required\nretry: no\nguidance: Ask for approval.\nreference: ref-gov (quote this when reporting the problem)',
    );
    expect(result._meta).toEqual(answer._meta);
    expect(answer.content[0]!.text).toBe('needs approval');
  });
});

describe('withNoteInResult, a result without variants', () => {
  it('appends to the last text block and keeps the other blocks', () => {
    const image = { type: 'image', data: 'AA==', mimeType: 'image/png' };
    const result = {
      ...refused(),
      content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }, image],
    };
    const noted = withNoteInContent(result) as { content: Array<{ text?: string }> };
    expect(noted.content[0]).toEqual({ type: 'text', text: 'a' });
    expect(noted.content[1]!.text).toMatch(/^b\n\n\[tool failure\]\nclass: governance\n/);
    expect(noted.content[2]).toBe(image);
  });

  it('adds a text block of its own when the content has none', () => {
    const result = { ...refused(), content: [] };
    const noted = withNoteInContent(result) as { content: Array<{ type: string; text: string }> };
    expect(noted.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^\[tool failure\]\n/) },
    ]);
  });

  it('leaves results without a valid failure object alone: successes, bare isError, broken objects', () => {
    const bare = { isError: true, content: [{ type: 'text', text: 'x' }] };
    const broken = {
      isError: true,
      content: [{ type: 'text', text: 'x' }],
      _meta: { 'io.modelcontextprotocol/toolFailure': { class: 'nope' } },
    };
    const success = { content: [{ type: 'text', text: 'x' }], _meta: refused()._meta };
    for (const result of [ok, bare, broken, success])
      expect(withNoteInContent(result)).toBe(result);
  });
});
