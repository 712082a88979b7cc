import type { TelemetrySource } from '../internal-types.js';
import { toolFailureResult } from '../tool-failure/build.js';
import { isToolFailureError } from '../tool-failure/error.js';
import { ownValue } from '../shared/safe.js';
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
    if (ownValue(request, 'method') === 'tools/call' && isToolFailureError(error)) {
      try {
        const failure = error.toToolFailure(serverCallTraceId());
        return toolFailureResult(failure, error.message, { metaKey: source.config().metaKey });
      } catch {
        throw error;
      }
    }
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

/** Notes an error on the running call and passes it on (a shared rejection handler). */
function noteAndRethrow(error: unknown): never {
  noteThrown(error);
  throw error;
}

/** Wraps a tool callback so that an error it throws is noted before the SDK flattens it to text. */
export function wrapToolCallback<F extends (this: unknown, ...args: unknown[]) => unknown>(
  callback: F,
): F {
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    try {
      const out = callback.apply(this, args);
      if (out instanceof Promise) return out.then(undefined, noteAndRethrow);
      return out;
    } catch (error) {
      noteThrown(error);
      throw error;
    }
  };
  return wrapped as F;
}
