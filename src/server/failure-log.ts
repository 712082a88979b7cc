import type { Attributes } from '@opentelemetry/api';
import type { TelemetrySource } from '../internal-types.js';
import { ATTR_GEN_AI_TOOL_NAME } from '../semconv.js';
import type { ToolFailure } from '@omcp/tool-failure';
import { spanNameOf } from '../shared/attributes.js';
import { emitFailureRecord, exceptionTypeOf } from '../shared/exception.js';
import { failureAttributes } from '../shared/failure-attributes.js';
import { safeJson } from '../shared/record.js';
import { truncate } from '../shared/truncate.js';
import type { ServerCall } from './call-context.js';

/**
 * Keeps the verbose detail on the server: a log record in the span's context with the failure
 * and the thrown error's `exception.*` attributes, and (when configured) an `exception` span event.
 */
export function recordDiagnostics(
  source: TelemetrySource,
  call: ServerCall,
  thrown: unknown,
  failure: ToolFailure | undefined,
): void {
  try {
    recordDiagnosticsUnsafe(source, call, thrown, failure);
  } catch (err) {
    // A thrown value with hostile accessors: the response and the span go on without the detail.
    source.diag.error('mcp: could not record the detail of a thrown error', err);
  }
}

function recordDiagnosticsUnsafe(
  source: TelemetrySource,
  call: ServerCall,
  thrown: unknown,
  failure: ToolFailure | undefined,
): void {
  const config = source.config();
  const type = thrown instanceof Error ? exceptionTypeOf(thrown) : undefined;
  // The log budget first: a record left out spends no stack token. -1: left out; else how many
  // records of this tool, code and type were left out before this one.
  const suppressed = config.emitFailureLogs
    ? source.budgets().logs.take(call.target, failure?.code ?? '', type ?? '')
    : -1;
  const withStack =
    type !== undefined &&
    (suppressed >= 0 || config.exceptionSpanEvents) &&
    source.budgets().stacks.take(call.target, type) >= 0;
  if (config.exceptionSpanEvents) {
    if (thrown instanceof Error)
      call.span.recordException(withStack ? thrown : { name: type, message: thrown.message });
    else if (thrown !== undefined)
      call.span.recordException({ name: 'NonError', message: truncate(safeJson(thrown), 1024) });
  }
  if (suppressed < 0) return;
  const attributes: Attributes =
    failure === undefined ? {} : failureAttributes(failure, config.maxAttributeLength);
  if (call.target !== undefined) attributes[ATTR_GEN_AI_TOOL_NAME] = call.target;
  emitFailureRecord(source.logger(), {
    severity: failure?.class === 'reliability' || failure === undefined ? 'ERROR' : 'WARN',
    body: `${spanNameOf(call.method, call.target)} failed${failure === undefined ? '' : ` (${failure.class}/${failure.code}, correlationId ${failure.correlationId})`}`,
    attributes,
    thrown,
    withStack,
    suppressed,
    context: call.ctx,
  });
}
