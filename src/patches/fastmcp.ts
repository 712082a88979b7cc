import { noteThrown, runningCall, type ServerCall } from '../server/call-context.js';
import { isRecord, ownValue } from '@omcp/tool-failure/wire';
import type { ErrorClassification } from '@omcp/tool-failure';
import type { Wrap } from './protocol.js';

/** Supported `fastmcp` versions (one line, closed range). */
export const FASTMCP_RANGE = '>=4.0.0 <5';

/**
 * fastmcp's `UserError` thrown by a tool: the tool ran and refused the request as the caller
 * made it, with a text written for the caller (fastmcp sends it without its `Tool '<name>'
 * execution failed:` prefix). Sending the same call again cannot help, and nothing says a policy
 * or a person must act: `capability`, with the baseline code for a request that cannot succeed as
 * made.
 */
export const FASTMCP_USER_ERROR: Readonly<ErrorClassification> = Object.freeze({
  class: 'capability',
  code: 'invalid_input',
});

/**
 * The `UserError` fastmcp makes itself when a tool outlives its `timeoutMs`: the server's own
 * time limit, classified as the built-in rules classify a `TimeoutError`.
 */
export const FASTMCP_TOOL_TIMEOUT: Readonly<ErrorClassification> = Object.freeze({
  class: 'reliability',
  code: 'timeout',
  retryable: true,
});

type AnyFn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Patches fastmcp's `FastMCPSession` (from the module's exports): every session's tools are
 * handed to fastmcp with an `execute` that notes what it throws, before fastmcp turns it into a
 * plain error result the instrumentation could not tell apart. A `UserError` is noted with
 * {@link FASTMCP_USER_ERROR}, fastmcp's own timeout with {@link FASTMCP_TOOL_TIMEOUT}; other
 * errors go to the classifiers as they do on the SDK's `McpServer`. Returns a one-line problem
 * when the module does not have the shape this patch knows.
 */
export function patchFastMcp(exports: Record<string, unknown>, wrap: Wrap): string | undefined {
  const session = exports.FastMCPSession;
  const userError = exports.UserError;
  const proto: unknown = typeof session === 'function' ? session.prototype : undefined;
  if (
    typeof userError !== 'function' ||
    !isRecord(proto) ||
    typeof proto.setupToolHandlers !== 'function'
  )
    return 'exports no FastMCPSession.prototype.setupToolHandlers or UserError';
  const isUserError = (error: unknown): boolean => {
    try {
      return error instanceof userError;
    } catch {
      return false;
    }
  };
  wrap(
    proto,
    'setupToolHandlers',
    (original) =>
      function setupToolHandlers(this: unknown, tools: unknown, ...rest: unknown[]): unknown {
        let captured = tools;
        try {
          if (Array.isArray(tools)) captured = tools.map((t) => withCapture(t, isUserError));
        } catch {
          captured = tools;
        }
        return original.call(this, captured, ...rest);
      },
  );
  return undefined;
}

/**
 * The tool as fastmcp's session sees it: the user's object as prototype (every field read
 * reaches it, nothing is copied or changed), with an own `execute` that notes errors.
 */
function withCapture(tool: unknown, isUserError: (error: unknown) => boolean): unknown {
  if (!isRecord(tool) || typeof tool.execute !== 'function') return tool;
  const execute = captureErrors(tool.execute as AnyFn, isUserError);
  return Object.create(tool, {
    execute: { value: execute, writable: true, enumerable: true, configurable: true },
  }) as unknown;
}

function captureErrors(execute: AnyFn, isUserError: (error: unknown) => boolean): AnyFn {
  return function capturedExecute(this: unknown, ...args: unknown[]): unknown {
    const call = runningCall();
    if (call === undefined) return execute.apply(this, args);
    const note = (error: unknown): void => {
      try {
        noteThrown(error, isUserError(error) ? FASTMCP_USER_ERROR : undefined, call);
      } catch {
        // Nothing of the instrumentation may surface in the tool's call.
      }
    };
    watchTimeout(args[1], call, isUserError);
    try {
      const out = execute.apply(this, args);
      // A side branch, as for the SDK's tool callbacks: fastmcp gets the promise itself.
      if (out instanceof Promise) out.then(undefined, note);
      return out;
    } catch (error) {
      note(error);
      throw error;
    }
  };
}

/**
 * fastmcp rejects a tool that outlives its `timeoutMs` with a `UserError` of its own, which the
 * tool never throws: it aborts the tool's `signal` with it first, and that is where it is seen.
 */
function watchTimeout(
  context: unknown,
  call: ServerCall,
  isUserError: (error: unknown) => boolean,
): void {
  try {
    const signal = ownValue(context, 'signal');
    if (!(signal instanceof AbortSignal) || signal.aborted) return;
    signal.addEventListener(
      'abort',
      () => {
        const reason: unknown = signal.reason;
        if (isUserError(reason)) noteThrown(reason, FASTMCP_TOOL_TIMEOUT, call);
      },
      { once: true },
    );
  } catch {
    // A context without a usable signal: a timeout stays unclassified, the call is untouched.
  }
}
