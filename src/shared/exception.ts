import type { Attributes, Context } from '@opentelemetry/api';
import { SEVERITY_ERROR, SEVERITY_WARN, type LoggerLike } from './logs.js';
import { safeJson } from './record.js';
import { truncate } from './truncate.js';
import {
  LOG_ATTR_EXCEPTION_CAUSE,
  LOG_ATTR_EXCEPTION_MESSAGE,
  LOG_ATTR_EXCEPTION_STACKTRACE,
  LOG_ATTR_EXCEPTION_TYPE,
  ATTR_MCP_TOOL_FAILURE_SUPPRESSED_RECORDS,
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

/** What one failure log record says, for {@link emitFailureRecord}. */
export interface FailureRecord {
  severity: 'WARN' | 'ERROR';
  body: string;
  /** The record's attributes so far (the failure's, the tool's); the exception's are added. */
  attributes: Attributes;
  /** The thrown error, if any, and whether its stack is within the stack budget. */
  thrown: unknown;
  withStack: boolean;
  /** Records of the same kind the log budget left out since the previous one. */
  suppressed: number;
  /** The span's context: the record carries its trace ID (the `correlationId`). */
  context: Context;
}

/**
 * The one emitter of failure log records (the server's per failed call, the retry policy's per
 * logical call ending in a thrown error): the exception conventions' attributes, the count of
 * records the budget left out, the severity, in the span's context.
 */
export function emitFailureRecord(logger: LoggerLike, record: FailureRecord): void {
  const { attributes } = record;
  writeExceptionAttributes(attributes, record.thrown, record.withStack);
  if (record.suppressed > 0)
    attributes[ATTR_MCP_TOOL_FAILURE_SUPPRESSED_RECORDS] = record.suppressed;
  logger.emit({
    severityNumber: record.severity === 'ERROR' ? SEVERITY_ERROR : SEVERITY_WARN,
    severityText: record.severity,
    body: record.body,
    attributes,
    context: record.context,
  });
}
