import type { TelemetrySource } from '../internal-types.js';
import { toolFailureResult } from '@omcp/tool-failure';
import { isToolFailureError } from '@omcp/tool-failure';
import { ownValue } from '@omcp/tool-failure/wire';
import { noteThrown, serverCallTraceId } from './call-context.js';

/**
 * Wraps a request handler so that an error it throws is noted on the running call (with its
 * stack, for the server's diagnostics), and a thrown `ToolFailureError` from a `tools/call`
 * handler becomes exactly the failure result it describes.
 */
export function wrapRequestHandler<H extends (this: unknown, ...args: unknown[]) => unknown>(
  handler: H,
  source: TelemetrySource,
): H {
  const onError = (request: unknown, error: unknown): unknown => {
    noteThrown(error);
    // The request is looked at only when something was thrown: the success path reads nothing.
    const result =
      ownValue(request, 'method') === 'tools/call' ? failureResultOf(source, error) : undefined;
    if (result !== undefined) return result;
    throw error;
  };
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    if (!source.active()) return handler.apply(this, args);
    try {
      const out = handler.apply(this, args);
      if (out instanceof Promise) return out.then(undefined, (error) => onError(args[0], error));
      return out;
    } catch (error) {
      return onError(args[0], error);
    }
  };
  return wrapped as H;
}

/**
 * The tool result a thrown `ToolFailureError` stands for, with the running call's trace ID as
 * its `correlationId`; undefined for any other error (or when it cannot be built).
 */
export function failureResultOf(source: TelemetrySource, error: unknown): unknown {
  if (!isToolFailureError(error)) return undefined;
  try {
    const failure = error.toToolFailure(serverCallTraceId());
    return toolFailureResult(failure, error.message, { metaKey: source.config().metaKey });
  } catch {
    return undefined;
  }
}

/**
 * Notes a rejection on the running call (a shared handler of a side branch, whose promise nobody
 * awaits: it must not reject).
 */
function noteRejection(error: unknown): void {
  try {
    noteThrown(error);
  } catch {
    // Nothing of the instrumentation may surface as an unhandled rejection.
  }
}

/**
 * Wraps a tool callback so that an error it throws is noted before the SDK flattens it to text.
 * A returned promise goes to the SDK as it is: the note hangs off it on a side branch, attached
 * before the SDK's own handler and so run before it, instead of a link in the chain that would
 * catch and throw the error again (a second rejection per failing call: the `no-callback-wrap`
 * knock-out of bench/knockouts.mjs read 4.5 µs a failing call before this, 1.9 µs after).
 */
export function wrapToolCallback<F extends (this: unknown, ...args: unknown[]) => unknown>(
  callback: F,
): F {
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    try {
      const out = callback.apply(this, args);
      if (out instanceof Promise) out.then(undefined, noteRejection);
      return out;
    } catch (error) {
      noteThrown(error);
      throw error;
    }
  };
  return wrapped as F;
}
