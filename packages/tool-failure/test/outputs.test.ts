/**
 * Failures on results with `outputs` (SEP-3279, result variants), from the SEP's own examples
 * (`sep-3279-examples.ts`): the failure object is read from the result-level `_meta` whatever
 * the outputs; the text a model may be shown, and the note, come from `assistant` outputs only.
 */
import { describe, expect, it } from 'vitest';
import {
  TOOL_FAILURE_META_KEY as KEY,
  contentTextOf,
  readToolFailure,
  toolFailureNote,
  withNoteInResult,
  type ToolFailure,
} from '../src/index.js';
import { modelContentOf, outputSelectorsOf, outputsOf } from '../src/outputs.js';
import { classifyErrorResult } from '../src/from-error-result.js';
import {
  CORRELATION_ID,
  FAILURE,
  SEP_EXAMPLES,
  apps,
  codeMode,
  conversational,
  hostNativeTable,
  structuredModelInput,
  userMedia,
} from './sep-3279-examples.js';

const ON = { outputs: true } as const;
const NOTE = toolFailureNote(FAILURE as ToolFailure);

type Output = {
  audience: string;
  format: string;
  content?: unknown[];
  structuredContent?: unknown;
};
type Noted = { content: Array<{ type: string; text?: string }>; outputs: Output[] };

describe('reading the failure object beside outputs', () => {
  it.each(Object.entries(SEP_EXAMPLES))('%s: valid, from the result-level _meta', (_name, make) => {
    const reading = readToolFailure(make());
    expect(reading).toEqual({ status: 'valid', failure: FAILURE, problems: [] });
  });

  it('a success with outputs and a failure object breaks the same rule as with content', () => {
    const success = { ...conversational(), isError: undefined };
    const reading = readToolFailure(success);
    expect(reading.problems.map((p) => p.rule)).toContain('TF-ONLY-ON-ERROR');
  });

  it('the selectors of each example, as a span records them', () => {
    expect(outputSelectorsOf(apps().outputs)).toEqual([
      'assistant/content',
      'io.modelcontextprotocol/ui/structured',
    ]);
    expect(outputSelectorsOf(codeMode().outputs)).toEqual(['programmatic/structured']);
    expect(
      outputSelectorsOf([null, 1, { audience: 'user' }, { audience: 'user', format: 'content' }]),
    ).toEqual(['user/content']);
  });
});

describe('the switch', () => {
  it('off (the default), outputs are not read: the model text is content alone', () => {
    expect(outputsOf(conversational())).toBeUndefined();
    expect(contentTextOf(conversational())).toBe('');
    expect(modelContentOf({ ...conversational(), content: [] })).toEqual([]);
  });

  it('off, a failed outputs result gets the note in content as before; outputs are untouched', () => {
    const result = conversational();
    const noted = withNoteInResult(result) as Noted;
    expect(noted.content).toEqual([{ type: 'text', text: NOTE }]);
    expect(noted.outputs).toBe(result.outputs);
  });
});

describe('what a model may be shown of an outputs result (switch on)', () => {
  it('the text of the assistant/content outputs, never the other audiences', () => {
    expect(contentTextOf(conversational(), ON)).toBe(
      'The customer directory did not answer; no Globex records could be searched.',
    );
    expect(contentTextOf(apps(), ON)).toBe(
      'The interactive table could not be loaded: the directory is busy.',
    );
    for (const make of [codeMode, userMedia, hostNativeTable, structuredModelInput])
      expect(modelContentOf(make(), ON)).toEqual([]);
  });

  it('an SDK 2.4 result (content: [] added beside outputs) reads its outputs', () => {
    const result = { ...conversational(), content: [] };
    expect(contentTextOf(result, ON)).toMatch(/^The customer directory did not answer/);
  });
});

describe('the note on an outputs result (switch on)', () => {
  it('Conversational client: appended to the assistant/content output, and content is that part', () => {
    const result = conversational();
    const noted = withNoteInResult(result, ON) as Noted;
    const text = `The customer directory did not answer; no Globex records could be searched.\n\n${NOTE}`;
    expect(noted.outputs).toEqual([
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text }] },
    ]);
    expect(noted.content).toEqual([{ type: 'text', text }]);
    // A copy: the server's result is left as it came.
    expect(result.outputs[0]!.content).toHaveLength(1);
    expect((result as { content?: unknown }).content).toBeUndefined();
  });

  it('MCP Apps integration: only the assistant output gets it; the View output and _meta stay out', () => {
    const result = apps();
    const noted = withNoteInResult(result, ON) as Noted;
    expect(noted.outputs[1]).toBe(result.outputs[1]);
    expect(noted.outputs[0]!.content).toEqual([
      {
        type: 'text',
        text: `The interactive table could not be loaded: the directory is busy.\n\n${NOTE}`,
      },
    ]);
    const modelSees = JSON.stringify(noted.content);
    for (const hidden of ['view_opaque_token', 'datasetVersion', 'cust_1042', KEY])
      expect(modelSees).not.toContain(hidden);
    expect(modelSees).toContain(CORRELATION_ID);
  });

  it('Structured model input: an assistant/content output of its own after the structured one', () => {
    const result = structuredModelInput();
    const noted = withNoteInResult(result, ON) as Noted;
    expect(noted.outputs).toEqual([
      result.outputs[0],
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text: NOTE }] },
    ]);
    expect(noted.content).toEqual([{ type: 'text', text: NOTE }]);
  });

  it.each([
    ['Code-mode client', codeMode],
    ['User-visible media', userMedia],
    ['Host-native structured presentation', hostNativeTable],
  ])('%s: no output is for the model, so no note anywhere', (_name, make) => {
    const result = make();
    expect(withNoteInResult(result, ON)).toBe(result);
  });

  it('an invalid failure object adds no note to an outputs result', () => {
    const result = { ...conversational(), _meta: { [KEY]: { class: 'nope' } } };
    expect(withNoteInResult(result, ON)).toBe(result);
  });
});

describe('bad input, switch on: never throws, loses nothing', () => {
  it.each<[string, unknown]>([
    ['outputs not an array', { isError: true, outputs: 'x', _meta: conversational()._meta }],
    [
      'outputs with null and numbers',
      { isError: true, outputs: [null, 3], _meta: conversational()._meta },
    ],
    [
      'an assistant/content output without an array',
      {
        isError: true,
        outputs: [{ audience: 'assistant', format: 'content', content: 'text' }],
        _meta: conversational()._meta,
      },
    ],
  ])('%s', (_name, result) => {
    expect(() => contentTextOf(result, ON)).not.toThrow();
    expect(() => withNoteInResult(result, ON)).not.toThrow();
  });

  it('the reader never runs an outputs getter', () => {
    let ran = false;
    const result = {
      isError: true,
      _meta: conversational()._meta,
      get outputs() {
        ran = true;
        return [];
      },
    };
    expect(outputsOf(result, ON)).toBeUndefined();
    expect(contentTextOf(result, ON)).toBe('');
    expect(ran).toBe(false);
  });

  it('a malformed assistant/content output gets an assistant/content output of its own', () => {
    const result = {
      isError: true,
      outputs: [{ audience: 'assistant', format: 'content', content: 'text' }],
      _meta: conversational()._meta,
    };
    const noted = withNoteInResult(result, ON) as Noted;
    expect(noted.outputs).toEqual([
      result.outputs[0],
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text: NOTE }] },
    ]);
  });
});

describe('the server classifies an error result by its assistant text (switch on)', () => {
  const refusal = {
    isError: true,
    content: [],
    outputs: [
      {
        audience: 'assistant',
        format: 'content',
        content: [{ type: 'text', text: 'MCP error -32602: Tool search_customer not found' }],
      },
    ],
  };

  it("the SDK's unknown-tool text in assistant/content: capability_unsupported", () => {
    expect(classifyErrorResult(undefined, refusal, undefined, ON)).toEqual({
      class: 'capability',
      code: 'capability_unsupported',
    });
  });

  it('switch off, the same result has no text to go by: internal_error', () => {
    expect(classifyErrorResult(undefined, refusal, undefined)).toMatchObject({
      class: 'reliability',
      code: 'internal_error',
    });
  });

  it('a programmatic output is not read for it', () => {
    const programmatic = {
      isError: true,
      outputs: [
        {
          audience: 'programmatic',
          format: 'content',
          content: [{ type: 'text', text: 'MCP error -32602: Tool x not found' }],
        },
      ],
    };
    expect(classifyErrorResult(undefined, programmatic, undefined, ON)).toMatchObject({
      code: 'internal_error',
    });
  });
});
