import type { Attributes } from '@opentelemetry/api';
import { safeJson } from './record.js';
import { truncate } from './truncate.js';

/** The `exception.type` of an error: its name (an error's own, else its class's). */
export function exceptionTypeOf(error: Error): string {
  const name: unknown = error.name;
  return typeof name === 'string' && name.length > 0 ? name : 'Error';
}

/**
 * Writes the exception conventions' attributes of `thrown` into `attributes` (a log record's):
 * type, message, the stack when `withStack`, the cause; a thrown non-error as `NonError` and its
 * JSON. Every value length-capped.
 */
export function writeExceptionAttributes(
  attributes: Attributes,
  thrown: unknown,
  withStack: boolean,
): void {
  if (thrown instanceof Error) {
    attributes['exception.type'] = exceptionTypeOf(thrown);
    attributes['exception.message'] = truncate(thrown.message, 4096);
    if (withStack && typeof thrown.stack === 'string')
      attributes['exception.stacktrace'] = truncate(thrown.stack, 16_384);
    const cause: unknown = thrown.cause;
    if (cause !== undefined)
      attributes['exception.cause'] = truncate(
        cause instanceof Error ? `${cause.name}: ${cause.message}` : safeJson(cause),
        4096,
      );
  } else if (thrown !== undefined) {
    attributes['exception.type'] = 'NonError';
    attributes['exception.message'] = truncate(safeJson(thrown), 1024);
  }
}
