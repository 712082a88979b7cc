import type { Attributes } from '@opentelemetry/api';
import { safeJson } from './record.js';
import { truncate } from './truncate.js';
import {
  LOG_ATTR_EXCEPTION_CAUSE,
  LOG_ATTR_EXCEPTION_MESSAGE,
  LOG_ATTR_EXCEPTION_STACKTRACE,
  LOG_ATTR_EXCEPTION_TYPE,
} from '../semconv.js';

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
    attributes[LOG_ATTR_EXCEPTION_TYPE] = exceptionTypeOf(thrown);
    attributes[LOG_ATTR_EXCEPTION_MESSAGE] = truncate(thrown.message, 4096);
    if (withStack && typeof thrown.stack === 'string')
      attributes[LOG_ATTR_EXCEPTION_STACKTRACE] = truncate(thrown.stack, 16_384);
    const cause: unknown = thrown.cause;
    if (cause !== undefined)
      attributes[LOG_ATTR_EXCEPTION_CAUSE] = truncate(
        cause instanceof Error ? `${cause.name}: ${cause.message}` : safeJson(cause),
        4096,
      );
  } else if (thrown !== undefined) {
    attributes[LOG_ATTR_EXCEPTION_TYPE] = 'NonError';
    attributes[LOG_ATTR_EXCEPTION_MESSAGE] = truncate(safeJson(thrown), 1024);
  }
}
