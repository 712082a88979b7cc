// Helpers the examples use to check their own output: any mismatch ends the process with
// exit code 1 and a one-line reason on stderr.
import { SpanKind } from '@opentelemetry/api';
import { TOOL_FAILURE_META_KEY } from '@omcp/tool-failure';

/** A correlationId this package makes: a W3C trace ID. */
export const TRACE_ID = /^[0-9a-f]{32}$/;

/** Ends the example with a one-line reason. */
export function fail(reason) {
  process.stderr.write(`FAIL: ${reason}\n`);
  process.exit(1);
}

/** Fails with `reason` unless `condition` holds. */
export function check(condition, reason) {
  if (!condition) fail(reason);
}

/** The in-memory exporter the telemetry setup file installed; fails when it was not loaded. */
export function spanExporter() {
  const exporter = globalThis[Symbol.for('@omcp/examples.spanExporter')];
  if (exporter === undefined) {
    fail('telemetry not loaded: run with node --import ./examples/telemetry.mjs <example>');
  }
  return exporter;
}

/** The failure object of a result, or undefined. */
export function failureOf(result) {
  return result?._meta?.[TOOL_FAILURE_META_KEY];
}

/**
 * Checks a failed result: isError, the expected class and code, and a correlationId that is the
 * trace ID of the server span of the same call.
 */
export function expectFailure(tool, result, expected) {
  check(result.isError === true, `${tool}: expected isError: true`);
  const failure = failureOf(result);
  check(failure !== undefined, `${tool}: no ${TOOL_FAILURE_META_KEY} object in _meta`);
  check(
    failure.class === expected.class && failure.code === expected.code,
    `${tool}: expected ${expected.class}/${expected.code}, got ${failure.class}/${failure.code}`,
  );
  check(TRACE_ID.test(failure.correlationId), `${tool}: correlationId is not a 32-hex trace ID`);
  const serverSpan = spanExporter()
    .getFinishedSpans()
    .find(
      (s) =>
        s.kind === SpanKind.SERVER &&
        s.name === `tools/call ${tool}` &&
        s.spanContext().traceId === failure.correlationId,
    );
  check(
    serverSpan !== undefined,
    `${tool}: no server span whose trace ID is the correlationId ${failure.correlationId}`,
  );
  check(
    serverSpan.attributes['mcp.tool.failure.class'] === expected.class,
    `${tool}: server span lacks mcp.tool.failure.class=${expected.class}`,
  );
  return failure;
}

/** One line per checked failure, the same in every example. */
export function report(tool, failure) {
  console.log(
    `${tool}: ${failure.class}/${failure.code} retryable=${failure.retryable ?? false} correlationId=${failure.correlationId}`,
  );
}
