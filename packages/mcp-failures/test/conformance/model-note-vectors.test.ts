/**
 * The model-note vectors of conformance/client-scenarios.json (`expect.modelNote`,
 * docs/conformance-vectors.md): for the result each scenario returns, the note a client shows
 * its model, line by line, given the tool's annotations. Run here through the data model's
 * `toolFailureNoteOf`, the one note every framework adapter uses.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { toolFailureNoteOf, type ToolRetryHints } from '@omcp/tool-failure';

const root = new URL('../../', import.meta.url);
const readJson = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(path, root), 'utf8')) as unknown;

interface Scenario {
  id: string;
  tool: { name: string; annotations: ToolRetryHints | null };
  attempts: Array<{ failure?: unknown; result?: unknown }>;
  expect: { returnedAttempt: number; modelNote?: string[] | null };
}
interface ScenariosFile {
  metaKey: string;
  resultTemplate: Record<string, unknown>;
  scenarios: Scenario[];
}

const file = readJson('conformance/client-scenarios.json') as ScenariosFile;

/** The result the scenario's client returns: its `returnedAttempt`'s answer. */
function returned(s: Scenario): unknown {
  const answer = s.attempts[s.expect.returnedAttempt - 1]!;
  if ('result' in answer) return answer.result;
  return { ...file.resultTemplate, _meta: { [file.metaKey]: answer.failure } };
}

describe('conformance vectors: the model note of each client scenario', () => {
  it('every scenario says which note its returned result gets (null for none)', () => {
    for (const s of file.scenarios) expect(s.expect.modelNote, s.id).not.toBeUndefined();
  });

  it.each(file.scenarios.map((s) => [s.id, s] as const))('%s', (_id, s) => {
    // A note is for a failed call only: a result without isError: true is a success.
    const result = returned(s) as { isError?: unknown } | null;
    const note =
      result?.isError === true
        ? toolFailureNoteOf(result, { annotations: s.tool.annotations })
        : undefined;
    expect(note === undefined ? null : note.split('\n')).toStrictEqual(s.expect.modelNote);
  });

  it('no note says "retry: yes" for a tool that does not declare idempotentHint: true', () => {
    const lines = (s: Scenario): string[] =>
      (s.expect.modelNote ?? []).filter((l) => l.startsWith('retry:'));
    const notIdempotent = file.scenarios.filter((s) => s.tool.annotations?.idempotentHint !== true);
    expect(notIdempotent.map((s) => s.id)).toEqual(
      expect.arrayContaining(['retryable-non-idempotent', 'retryable-unannotated']),
    );
    for (const s of notIdempotent)
      for (const line of lines(s)) expect(line, s.id).not.toMatch(/^retry: yes/);
    // The case: send_payment, idempotentHint false, retryable with a retryNotBefore.
    const payment = file.scenarios.find((s) => s.id === 'retryable-non-idempotent-not-before')!;
    expect(lines(payment)).toEqual([
      "retry: only with the user's consent (the tool is not declared safe to repeat), not before 2027-01-15T08:00:02.000Z",
    ]);
    // And a retryable failure of an idempotent tool does say yes.
    expect(lines(file.scenarios.find((s) => s.id === 'attempts-exhausted')!)).toEqual([
      'retry: yes',
    ]);
  });

  it('the schema refuses a note line with a line break in it', () => {
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(
      readJson('conformance/vectors.schema.json') as object,
    );
    expect(validate(file)).toBe(true);
    const broken = JSON.parse(JSON.stringify(file)) as ScenariosFile;
    broken.scenarios[0]!.expect.modelNote = ['[tool failure]\nretry: yes', 'b', 'c', 'd', 'e'];
    expect(validate(broken)).toBe(false);
  });
});
