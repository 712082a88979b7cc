import { isRecord, ownData } from '../shared/safe.js';
import { readToolFailure, type ReadToolFailureOptions } from './read.js';
import type { ToolFailure } from './types.js';

/**
 * The one rule for showing a tool failure to a model. A client never forwards a result's
 * `_meta` to the model; it may append this note, built only from a failure object that read
 * as valid: class, code, whether and when a retry makes sense, the `agentGuidance`, and the
 * `correlationId` as a reference the model can quote to the person. Every value is flattened
 * to one line and capped, so server text cannot add lines that look like the note's own.
 *
 * The format (stable; docs/extension.md, "Showing a failure to a model"):
 *
 *     [tool failure]
 *     class: reliability
 *     code: upstream_unavailable
 *     retry: yes, not before 2026-12-03T10:00:05.000Z
 *     guidance: The billing service is busy; try again shortly.
 *     reference: 4bf92f3577b34da6a3ce929d0e0e4736 (quote this when reporting the problem)
 *
 * `retry:` is `yes`, `yes, not before <ISO 8601 UTC>` or `no`; `guidance:` is left out when
 * the server gave none.
 */
export const TOOL_FAILURE_NOTE_HEADER = '[tool failure]';

/** The longest `agentGuidance` the note carries, in UTF-16 code units; longer text is cut. */
export const NOTE_GUIDANCE_MAX = 500;

/** The longest `code` or `correlationId` the note carries. */
const NOTE_FIELD_MAX = 128;

/** What a model is told to do with the reference. */
const REFERENCE_HINT = '(quote this when reporting the problem)';

/** The note for a failure object that read as valid (`readToolFailure(...).failure`). */
export function toolFailureNote(failure: ToolFailure): string {
  const lines = [
    TOOL_FAILURE_NOTE_HEADER,
    `class: ${failure.class}`,
    `code: ${oneLine(failure.code, NOTE_FIELD_MAX)}`,
    `retry: ${retryOf(failure)}`,
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
  options?: ReadToolFailureOptions,
): string | undefined {
  const reading = readToolFailure(result, options);
  return reading.status === 'valid' ? toolFailureNote(reading.failure) : undefined;
}

/**
 * `text` with the result's note after it (a blank line between), or `text` unchanged when the
 * result has no valid failure object. For adapters whose framework hands the model one string.
 */
export function withToolFailureNote(
  text: string,
  result: unknown,
  options?: ReadToolFailureOptions,
): string {
  const note = toolFailureNoteOf(result, options);
  if (note === undefined) return text;
  return text === '' ? note : `${text}\n\n${note}`;
}

/** The text blocks of a result's `content`, joined by newlines (what frameworks show a model). */
export function contentTextOf(result: unknown): string {
  if (!isRecord(result)) return '';
  const content = ownData(result, 'content');
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const block of content as unknown[]) {
    if (isRecord(block) && ownData(block, 'type') === 'text') {
      const text = ownData(block, 'text');
      if (typeof text === 'string') texts.push(text);
    }
  }
  return texts.join('\n');
}

function retryOf(failure: ToolFailure): string {
  if (failure.class !== 'reliability' || failure.retryable !== true) return 'no';
  const at = failure.retryNotBefore;
  if (typeof at !== 'number' || !Number.isFinite(at)) return 'yes';
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? 'yes' : `yes, not before ${date.toISOString()}`;
}

/** `value` with control characters and line breaks made spaces, trimmed, cut to `max`. */
function oneLine(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
