// Tool result variants (the open SEP "Negotiated Tool Result Variants", modelcontextprotocol
// PR #3279, draft of 2026-08-19): a `CallToolResult` whose `outputs` replace `content` and
// `structuredContent`, each output routed to its `audience`. The one module that knows that
// shape; everything that looks for the text a model may see, or puts the failure note there,
// reads it through here. Pure; behind the `toolResultOutputs` switch while the SEP is open.
import { isRecord, ownData } from './wire/safe.js';

/**
 * One output of a result with variants, as the SEP's schema types draw it. `audience` is
 * `assistant`, `user`, `programmatic`, or a negotiated extension's identifier.
 */
export type ToolResultOutput =
  | { audience: string; format: 'content'; content: unknown[] }
  | { audience: string; format: 'structured'; structuredContent: unknown };

/** Options of the functions that may look at `outputs`: the switch, off unless set. */
export interface ResultOutputsOptions {
  /** Read `outputs` when a result has them (the SEP is open: off by default). @default false */
  outputs?: boolean;
}

/**
 * The result's own `outputs` array, when the switch is on and the result has one; `undefined`
 * for every other result (a result without variants, or the switch off). Never throws.
 */
export function outputsOf(result: unknown, options?: ResultOutputsOptions): unknown[] | undefined {
  if (options?.outputs !== true || !isRecord(result)) return undefined;
  try {
    const outputs = ownData(result, 'outputs');
    return Array.isArray(outputs) ? (outputs as unknown[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `audience/format` of each well-formed output, in order (what a span records); an entry that
 * is not an object with string `audience` and `format` is left out.
 */
export function outputSelectorsOf(outputs: readonly unknown[]): string[] {
  const selectors: string[] = [];
  for (const output of outputs) {
    if (!isRecord(output)) continue;
    const audience = ownData(output, 'audience');
    const format = ownData(output, 'format');
    if (typeof audience === 'string' && typeof format === 'string')
      selectors.push(`${audience}/${format}`);
  }
  return selectors;
}

/** Whether `output` is one the model may be given: `assistant` audience (SEP, "Routing"). */
function isAssistant(output: unknown): output is Record<string, unknown> {
  return isRecord(output) && ownData(output, 'audience') === 'assistant';
}

/** Whether `output` is an `assistant/content` output with a content array. */
function isAssistantContent(output: unknown): output is Record<string, unknown> {
  return (
    isAssistant(output) &&
    ownData(output, 'format') === 'content' &&
    Array.isArray(ownData(output, 'content'))
  );
}

/**
 * The content blocks a model may be shown for this result: its `content` (no variants, or the
 * switch off), else the blocks of its `assistant/content` outputs, in order. Never the blocks of
 * a `user`, `programmatic` or extension output: those must not reach the model.
 */
export function modelContentOf(result: unknown, options?: ResultOutputsOptions): unknown[] {
  if (!isRecord(result)) return [];
  const outputs = outputsOf(result, options);
  if (outputs === undefined) {
    const content = ownData(result, 'content');
    return Array.isArray(content) ? [...(content as unknown[])] : [];
  }
  const blocks: unknown[] = [];
  for (const output of outputs)
    if (isAssistantContent(output)) blocks.push(...(ownData(output, 'content') as unknown[]));
  return blocks;
}

/** Whether the model is shown anything of this result (it has an `assistant` output). */
export function hasAssistantOutput(outputs: readonly unknown[]): boolean {
  return outputs.some(isAssistant);
}

/**
 * A copy of `outputs` with `note` as the last text of the model's part: appended to the last
 * text block of the last `assistant/content` output, or a text block of its own there, or, when
 * the model gets only `assistant/structured`, one `assistant/content` output of its own after
 * them. `undefined` when no output is for the model (a code-mode or user-only call): the note
 * then goes nowhere. Other outputs are kept as they are.
 */
export function outputsWithNote(
  outputs: readonly unknown[],
  note: string,
  join: (text: string) => string,
): unknown[] | undefined {
  if (!hasAssistantOutput(outputs)) return undefined;
  const copy = [...outputs];
  let at = -1;
  copy.forEach((output, i) => {
    if (isAssistantContent(output)) at = i;
  });
  if (at === -1) {
    copy.push({
      audience: 'assistant',
      format: 'content',
      content: [{ type: 'text', text: note }],
    });
    return copy;
  }
  const output = copy[at] as Record<string, unknown>;
  copy[at] = {
    ...output,
    content: blocksWithNote(ownData(output, 'content') as unknown[], note, join),
  };
  return copy;
}

/**
 * `blocks` with the note appended to the last text block (`join` makes its text), or as a text
 * block of its own when there is none. A copy; the other blocks are kept as they are.
 */
export function blocksWithNote(
  blocks: readonly unknown[],
  note: string,
  join: (text: string) => string,
): unknown[] {
  const copy = [...blocks];
  let at = -1;
  copy.forEach((block, i) => {
    if (isRecord(block) && ownData(block, 'type') === 'text') at = i;
  });
  const last = at === -1 ? undefined : (copy[at] as Record<string, unknown>);
  const text = last === undefined ? undefined : ownData(last, 'text');
  if (last !== undefined && typeof text === 'string') copy[at] = { ...last, text: join(text) };
  else copy.push({ type: 'text', text: note });
  return copy;
}
