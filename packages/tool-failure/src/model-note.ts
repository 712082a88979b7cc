import { isRecord, ownData } from './wire/safe.js';
import {
  blocksWithNote,
  modelContentOf,
  outputsOf,
  outputsWithNote,
  type ResultOutputsOptions,
} from './outputs.js';
import { readToolFailure, type ReadToolFailureOptions } from './read.js';
import { retryPermissionOf, type ToolRetryHints } from './retry-rule.js';
import type { ToolFailure } from './types.js';

/** What the note knows of the tool that failed. */
export interface ToolFailureNoteOptions {
  /**
   * The tool's annotations (from `tools/list`): `retry: yes` needs `idempotentHint: true`.
   * Unknown (left out) counts as not idempotent: the note then says to ask the person first.
   */
  annotations?: ToolRetryHints | null;
}

/** Options of the note functions that take a whole result: the `_meta` key, the switch, the tool. */
export type ModelNoteOptions = ReadToolFailureOptions &
  ResultOutputsOptions &
  ToolFailureNoteOptions;

/**
 * The one rule for showing a tool failure to a model. A client never forwards a result's
 * `_meta` to the model; it may append this note, built only from a failure object that read
 * as valid: class, code, whether and when a retry makes sense, the `agentGuidance`, and the
 * `correlationId` as a reference the model can quote to the person. Every value is flattened
 * to one line and capped, so server text cannot add lines that look like the note's own.
 *
 * The format (stable; docs/extension.md, "Showing a failure to a model"), here for a tool that
 * declares `idempotentHint: true`:
 *
 *     [tool failure]
 *     class: reliability
 *     code: upstream_unavailable
 *     retry: yes, not before 2026-12-03T10:00:05.000Z
 *     guidance: The billing service is busy; try again shortly.
 *     reference: 4bf92f3577b34da6a3ce929d0e0e4736 (quote this when reporting the problem)
 *
 * `retry:` follows the proposal's rule (`retryPermissionOf`): `yes` (or `yes, not before
 * <ISO 8601 UTC>`) only for a `reliability` failure with `retryable: true` of a tool whose
 * annotations declare `idempotentHint: true`; {@link NOTE_RETRY_WITH_CONSENT} (with the same
 * `, not before …`) when the tool is not declared idempotent or its annotations are unknown, so
 * the model does not resend a payment or an email on its own; `no` otherwise. `guidance:` is
 * left out when the server gave none.
 */
export const TOOL_FAILURE_NOTE_HEADER = '[tool failure]';

/** The longest `agentGuidance` the note carries, in UTF-16 code units; longer text is cut. */
export const NOTE_GUIDANCE_MAX = 500;

/** The longest `code` or `correlationId` the note carries. */
const NOTE_FIELD_MAX = 128;

/**
 * The `retry:` value for a retryable failure of a tool not declared idempotent (or whose
 * annotations are unknown): sending the call again may repeat what it did.
 */
export const NOTE_RETRY_WITH_CONSENT =
  "only with the user's consent (the tool is not declared safe to repeat)";

/** What a model is told to do with the reference. */
const REFERENCE_HINT = '(quote this when reporting the problem)';

/**
 * The note for a failure object that read as valid (`readToolFailure(...).failure`), for the
 * tool with `options.annotations` (unknown when left out).
 */
export function toolFailureNote(failure: ToolFailure, options?: ToolFailureNoteOptions): string {
  const lines = [
    TOOL_FAILURE_NOTE_HEADER,
    `class: ${failure.class}`,
    `code: ${oneLine(failure.code, NOTE_FIELD_MAX)}`,
    `retry: ${retryOf(failure, options?.annotations)}`,
  ];
  if (typeof failure.agentGuidance === 'string' && failure.agentGuidance.trim() !== '')
    lines.push(`guidance: ${oneLine(failure.agentGuidance, NOTE_GUIDANCE_MAX)}`);
  lines.push(`reference: ${oneLine(failure.correlationId, NOTE_FIELD_MAX)} ${REFERENCE_HINT}`);
  return lines.join('\n');
}

/**
 * The note of a received `CallToolResult`, or `undefined` when it carries no valid failure
 * object (an ordinary result, an error without one, or one that fails the proposal's rules:
 * unchecked server data never reaches the model through the note). Never throws.
 */
export function toolFailureNoteOf(
  result: unknown,
  options?: ReadToolFailureOptions & ToolFailureNoteOptions,
): string | undefined {
  const reading = readToolFailure(result, options);
  return reading.status === 'valid' ? toolFailureNote(reading.failure, options) : undefined;
}

/**
 * `text` with the result's note after it (a blank line between), or `text` unchanged when the
 * result has no valid failure object. For adapters whose framework hands the model one string.
 */
export function withToolFailureNote(
  text: string,
  result: unknown,
  options?: ReadToolFailureOptions & ToolFailureNoteOptions,
): string {
  const note = toolFailureNoteOf(result, options);
  return note === undefined ? text : joinNote(text, note);
}

/** `text`, a blank line and `note` (the note alone after empty text). */
function joinNote(text: string, note: string): string {
  return text === '' ? note : `${text}\n\n${note}`;
}

/**
 * A copy of a failed call's result (`isError: true` with a valid failure object) with the note
 * where the model reads it; any other result as it is. Never throws.
 *
 * - Without variants: in `content`, appended to its last text block, or a text block of its own.
 * - With `outputs` (switch on, docs/extension.md "Beside outputs"): in the model's part only,
 *   appended to the last `assistant/content` output (or an `assistant/content` output of its own
 *   when the model gets only `assistant/structured`); and `content`, what a framework of today
 *   hands its model, becomes that part's blocks with the note. A call with no `assistant` output
 *   (code mode, user-only) gets no note: the model is not shown it.
 */
export function withNoteInResult(result: unknown, options?: ModelNoteOptions): unknown {
  try {
    if (!isRecord(result) || ownData(result, 'isError') !== true) return result;
    const note = toolFailureNoteOf(result, options);
    if (note === undefined) return result;
    const join = (text: string): string => joinNote(text, note);
    const outputs = outputsOf(result, options);
    if (outputs === undefined)
      return { ...result, content: blocksWithNote(modelContentOf(result), note, join) };
    const noted = outputsWithNote(outputs, note, join);
    if (noted === undefined) return result;
    return {
      ...result,
      outputs: noted,
      content: blocksWithNote(modelContentOf(result, options), note, join),
    };
  } catch {
    return result;
  }
}

/**
 * The text blocks a model may be shown of a result, joined by newlines (what frameworks show a
 * model): its `content`, or with `outputs` (switch on) its `assistant/content` outputs only.
 */
export function contentTextOf(result: unknown, options?: ResultOutputsOptions): string {
  const texts: string[] = [];
  for (const block of modelContentOf(result, options)) {
    if (isRecord(block) && ownData(block, 'type') === 'text') {
      const text = ownData(block, 'text');
      if (typeof text === 'string') texts.push(text);
    }
  }
  return texts.join('\n');
}

function retryOf(failure: ToolFailure, annotations: ToolRetryHints | null | undefined): string {
  const permission = retryPermissionOf(failure, annotations);
  if (permission !== 'allowed' && permission !== 'not_idempotent') return 'no';
  const answer = permission === 'allowed' ? 'yes' : NOTE_RETRY_WITH_CONSENT;
  const at = failure.retryNotBefore;
  if (typeof at !== 'number' || !Number.isFinite(at)) return answer;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? answer : `${answer}, not before ${date.toISOString()}`;
}

/** `value` with control characters and line breaks made spaces, trimmed, cut to `max`. */
function oneLine(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
