import { context } from '@opentelemetry/api';
import type { JsonRpcMessage, TelemetrySource } from '../internal-types.js';
import { fallbackCall, noteThrown, type ServerCall } from '../server/call-context.js';
import { failureResultOf } from '../server/handlers.js';
import { endCall, finishServerCall, startServerCall } from '../server/server-call.js';
import { errorTypeOf } from '../shared/error-type.js';
import { isRecord } from '@omcp/tool-failure/wire';
import type { Wrap } from './protocol.js';

/** Supported `tmcp` versions (one line, closed range). */
export const TMCP_RANGE = '>=1.0.0 <2';

type AnyFn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Patches tmcp's `McpServer` (a prototype, or one server object in manual mode). Every tmcp
 * transport hands each message to `server.receive(message, ctx)` and sends what it resolves
 * to, so `receive` is where a request starts and ends: the SERVER span covers it, with the
 * caller's context from `params._meta`, and an error result gains its failure object there.
 * `tool` registers callbacks whose thrown errors are noted (a thrown `ToolFailureError` becomes
 * the failure result it describes, as on the SDK). Returns a one-line problem when the object
 * does not have the shape this patch knows.
 */
export function patchTmcpServer(
  proto: object,
  source: TelemetrySource,
  wrap: Wrap,
): string | undefined {
  const record = proto as Record<string, unknown>;
  if (typeof record.receive !== 'function' || typeof record.tool !== 'function')
    return 'has an McpServer without receive() or tool()';
  wrap(
    proto,
    'receive',
    (original) =>
      function receive(this: unknown, message: unknown, ...rest: unknown[]): unknown {
        if (!source.active() || typeof this !== 'object' || this === null)
          return original.call(this, message, ...rest);
        return traceReceive(source, this, original, message, rest);
      },
  );
  wrap(
    proto,
    'tool',
    (original) =>
      function tool(this: unknown, options: unknown, ...rest: unknown[]): unknown {
        let args = [options, ...rest];
        try {
          args = withCapturedExecute(source, options, rest);
        } catch {
          args = [options, ...rest];
        }
        return original.apply(this, args);
      },
  );
  return undefined;
}

function traceReceive(
  source: TelemetrySource,
  server: object,
  original: AnyFn,
  message: unknown,
  rest: unknown[],
): unknown {
  let call: ServerCall | undefined;
  try {
    // tmcp's receive context (session id, custom data) stands for the transport.
    call = startServerCall(source, server, rest[0], message as JsonRpcMessage, rest[0]);
  } catch (err) {
    source.diag.error('mcp: could not start a server span', err);
  }
  if (call === undefined) return original.call(server, message, ...rest);
  const started = call;
  let out: unknown;
  try {
    out = context.with(started.ctx, () =>
      context.active() === started.ctx
        ? original.call(server, message, ...rest)
        : fallbackCall.run(started, () => original.call(server, message, ...rest)),
    );
  } catch (error) {
    endCall(source, started, errorTypeOf(error));
    throw error;
  }
  if (!(out instanceof Promise)) return finish(source, server, started, out);
  return out.then(
    (response: unknown) => finish(source, server, started, response),
    (error: unknown) => {
      endCall(source, started, errorTypeOf(error));
      throw error;
    },
  );
}

/** The response goes back to the transport: a copy with a failure object, or as it was. */
function finish(
  source: TelemetrySource,
  server: object,
  call: ServerCall,
  response: unknown,
): unknown {
  try {
    if (isRecord(response)) return finishServerCall(source, server, call, response);
    endCall(source, call, 'no_response');
  } catch (err) {
    source.diag.error('mcp: could not record a server response', err);
  }
  return response;
}

/**
 * `tool(options, execute)` or `tool(defined)` with `execute` on the definition: the arguments
 * with the callback wrapped. A definition is not changed: tmcp gets an object that has it as
 * prototype (every field read reaches it) and an own `execute`.
 */
function withCapturedExecute(
  source: TelemetrySource,
  options: unknown,
  rest: unknown[],
): unknown[] {
  if (!isRecord(options)) return [options, ...rest];
  if ('execute' in options) {
    const execute = options.execute;
    if (typeof execute !== 'function') return [options, ...rest];
    const derived = Object.create(options, {
      execute: {
        value: captureErrors(source, execute as AnyFn),
        writable: true,
        enumerable: true,
        configurable: true,
      },
    }) as unknown;
    return [derived, ...rest];
  }
  const [execute, ...more] = rest;
  if (typeof execute !== 'function') return [options, ...rest];
  return [options, captureErrors(source, execute as AnyFn), ...more];
}

function captureErrors(source: TelemetrySource, execute: AnyFn): AnyFn {
  const onError = (error: unknown): unknown => {
    noteThrown(error);
    const result = failureResultOf(source, error);
    if (result !== undefined) return result;
    throw error;
  };
  return function capturedExecute(this: unknown, ...args: unknown[]): unknown {
    if (!source.active()) return execute.apply(this, args);
    try {
      const out = execute.apply(this, args);
      return out instanceof Promise ? out.then(undefined, onError) : out;
    } catch (error) {
      return onError(error);
    }
  };
}
