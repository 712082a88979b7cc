/**
 * The answers the proxy gives itself, and the one line each is logged with: a failure it
 * reports for the upstream, input it cannot relay. Every line names the method, the tool
 * (quoted), the class and code, why, and the `correlationId` the caller got; never arguments.
 */
import { diag } from '@opentelemetry/api';
import { INVALID_PARAMS } from '@omcp/tool-failure/wire';
import { toolFailure, TOOL_FAILURE_META_KEY } from '@omcp/tool-failure';
import type { ToolFailureInit } from '@omcp/tool-failure';
import { oneLine, plain } from './downstreams.js';
import { unrelayableInputInit } from './forward.js';

type Params = Record<string, unknown>;
type Log = (line: string) => void;

/** Where the proxy's faults go: the `log` option, else the OpenTelemetry diagnostic logger. */
export function faultLog(given: Log | undefined): Log {
  if (given === undefined) return (line) => diag.warn(`mcp-failure-proxy: ${line}`);
  return (line) => {
    try {
      given(line);
    } catch {
      // A broken logger must not break the relay.
    }
  };
}

/** One line for a failure result the proxy answered itself. */
export function logFailure(
  log: Log,
  method: string,
  tool: string,
  result: Params,
  why: string,
): void {
  const failure = (result._meta as Params | undefined)?.[TOOL_FAILURE_META_KEY] as
    { class?: unknown; code?: unknown; correlationId?: unknown } | undefined;
  log(
    `${plain(method)} ${oneLine(tool)}: ${String(failure?.class)}/${String(failure?.code)} (${plain(why)}); correlationId ${String(failure?.correlationId)}`,
  );
}

/** A failure result the proxy answers itself (its span's trace ID as `correlationId`), logged. */
export function ownFailure(log: Log, method: string, tool: string, init: ToolFailureInit): Params {
  const result = toolFailure(init);
  logFailure(log, method, tool, result, init.message ?? '');
  return result;
}

/**
 * The answer to a request the proxy cannot send upstream: the caller's input. `tools/call` gets
 * `capability` / `invalid_input`; any other method a JSON-RPC invalid-params error (thrown).
 */
export function unrelayable(log: Log, method: string, params: unknown, detail: string): Params {
  const tool = toolNameOf(params);
  if (method !== 'tools/call') {
    log(`${plain(method)}: not relayed, the caller's params ${detail} (${INVALID_PARAMS})`);
    throw Object.assign(new Error(`mcp-failure-proxy cannot relay the request: ${detail}`), {
      code: INVALID_PARAMS,
    });
  }
  return ownFailure(log, method, tool, unrelayableInputInit(tool, detail));
}

/** The tool name of `tools/call` params, or `''`. */
export function toolNameOf(params: unknown): string {
  const name = (params as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
}
