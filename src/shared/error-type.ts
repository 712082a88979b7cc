import { REQUEST_TIMEOUT } from '@omcp/tool-failure/wire';
import { isRecord, ownValue } from '@omcp/tool-failure/wire';

/** `error.type` of a request or call the caller cancelled (its signal aborted). */
export const ERROR_TYPE_CANCELLED = 'cancelled';
/** `error.type` of a request that timed out (the SDKs' RequestTimeout with its `data.timeout`). */
export const ERROR_TYPE_TIMEOUT = 'timeout';
/** `error.type` when nothing better is known (the semantic conventions' fallback value). */
export const ERROR_TYPE_OTHER = '_OTHER';

/**
 * The one rule for the `error.type` of a thrown error, client side and in the retry policy:
 * `cancelled` when the caller's signal aborted, `timeout` for the SDKs' request timeout, the
 * JSON-RPC code of a JSON-RPC error, a Node system error's code (`ECONNRESET`), else the error's
 * name (`_OTHER` for a thrown non-error). All low-cardinality by construction.
 */
export function errorTypeOf(error: unknown, aborted = false): string {
  if (aborted) return ERROR_TYPE_CANCELLED;
  const code = ownValue(error, 'code');
  if (code === REQUEST_TIMEOUT) {
    const data = ownValue(error, 'data');
    if (isRecord(data) && 'timeout' in data) return ERROR_TYPE_TIMEOUT;
  }
  if (typeof code === 'number' && Number.isInteger(code)) return String(code);
  if (typeof code === 'string' && /^E[A-Z0-9_]{1,40}$/.test(code)) return code;
  if (error instanceof Error) {
    const name: unknown = error.name;
    return typeof name === 'string' && name.length > 0 ? name : ERROR_TYPE_OTHER;
  }
  return ERROR_TYPE_OTHER;
}

/** Whether `errorType` is a JSON-RPC code (and so also goes to `rpc.response.status_code`). */
export function isJsonRpcCodeType(errorType: string): boolean {
  return /^-?\d+$/.test(errorType);
}
