import { isToolFailureError } from './error.js';
import type { ErrorClassification, ErrorClassifier } from './types.js';
import {
  CONNECTION_CLOSED,
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR,
  REQUEST_TIMEOUT,
  RESOURCE_NOT_FOUND,
  UNSUPPORTED_PROTOCOL_VERSION,
  URL_ELICITATION_REQUIRED,
} from './wire/jsonrpc.js';
import { safeGet } from './wire/safe.js';

/** Options for `classifyError`. */
export interface ClassifyErrorOptions {
  /** Consulted first; `undefined` falls back to the built-in rules. */
  classifier?: ErrorClassifier;
  /** Clock for turning `Retry-After` into `retryNotBefore`. @default Date.now */
  now?: () => number;
}

/**
 * The classification of an error nothing else recognises: it never invites a retry.
 * `reliability` because the server failed rather than the request, `retryable: false`
 * because nothing says a second try would be safe or useful.
 */
export const DEFAULT_CLASSIFICATION: Readonly<ErrorClassification> = Object.freeze({
  class: 'reliability',
  code: 'internal_error',
  retryable: false,
});

const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** Whether `code` is a Node or undici network error code the rules count as transient. */
export function isTransientNetworkCode(code: string): boolean {
  return TRANSIENT_NETWORK_CODES.has(code);
}

const invalidInput: ErrorClassification = { class: 'capability', code: 'invalid_input' };
const notFound: ErrorClassification = { class: 'capability', code: 'resource_not_found' };
const denied: ErrorClassification = { class: 'governance', code: 'permission_denied' };
const authRequired: ErrorClassification = { class: 'governance', code: 'auth_required' };
const transient: ErrorClassification = {
  class: 'reliability',
  code: 'retryable_transient_error',
  retryable: true,
};
const exhausted: ErrorClassification = {
  class: 'reliability',
  code: 'resource_exhausted',
  retryable: false,
};

/**
 * Node.js system errors (`fs`, `child_process`, `net`) and the string codes of common database
 * drivers (mysql / mysql2, SQLite), by `code`. Transient pressure (too many open files, a busy
 * or locked resource, a deadlock) is worth a retry; a full disk is not.
 */
const STRING_CODES: Record<string, ErrorClassification> = {
  ENOENT: notFound,
  ENOTDIR: notFound,
  EACCES: denied,
  EPERM: denied,
  EROFS: denied,
  EISDIR: invalidInput,
  EINVAL: invalidInput,
  ENAMETOOLONG: invalidInput,
  EMFILE: transient,
  ENFILE: transient,
  EBUSY: transient,
  EAGAIN: transient,
  ENOSPC: exhausted,
  EDQUOT: exhausted,
  ENOMEM: exhausted,
  ER_LOCK_DEADLOCK: transient,
  ER_LOCK_WAIT_TIMEOUT: transient,
  ER_CON_COUNT_ERROR: transient,
  PROTOCOL_CONNECTION_LOST: transient,
  ER_ACCESS_DENIED_ERROR: authRequired,
  ER_DBACCESS_DENIED_ERROR: denied,
  ER_TABLEACCESS_DENIED_ERROR: denied,
  ER_DUP_ENTRY: invalidInput,
  ER_NO_REFERENCED_ROW_2: invalidInput,
  SQLITE_BUSY: transient,
  SQLITE_LOCKED: transient,
  SQLITE_READONLY: denied,
  SQLITE_PERM: denied,
  SQLITE_AUTH: denied,
  SQLITE_FULL: exhausted,
};

/**
 * PostgreSQL SQLSTATE codes (node-postgres puts them in `code`, beside `severity`), by code and
 * then by class (the first two characters).
 */
const SQLSTATE: Record<string, ErrorClassification> = {
  '40001': transient,
  '40P01': transient,
  '53300': transient,
  '57P01': transient,
  '57P03': transient,
  '57014': { class: 'reliability', code: 'timeout', retryable: true },
  '42501': denied,
  '28000': authRequired,
  '28P01': authRequired,
  '53100': exhausted,
};
const SQLSTATE_CLASSES: Record<string, ErrorClassification> = {
  '08': transient,
  '22': invalidInput,
  '23': invalidInput,
};

/** MongoDB driver errors that are transient by their class name or the server's labels. */
const MONGO_TRANSIENT_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
]);
const MONGO_RETRY_LABELS = ['RetryableWriteError', 'TransientTransactionError'];

/** A database driver's or Node's own string code, classified; `undefined` when not known. */
function classifyStringCode(error: object, code: string): ErrorClassification | undefined {
  const known = STRING_CODES[code];
  if (known !== undefined) return { ...known };
  if (code.startsWith('ERR_INVALID_ARG_')) return { ...invalidInput };
  if (code.startsWith('SQLITE_CONSTRAINT')) return { ...invalidInput };
  if (/^[0-9A-Z]{5}$/.test(code) && typeof safeGet(error, 'severity') === 'string') {
    const pg = SQLSTATE[code] ?? SQLSTATE_CLASSES[code.slice(0, 2)];
    if (pg !== undefined) return { ...pg };
  }
  return undefined;
}

function isMongoTransient(error: object, name: unknown): boolean {
  if (typeof name === 'string' && MONGO_TRANSIENT_NAMES.has(name)) return true;
  const labels = safeGet(error, 'errorLabels');
  if (labels === undefined) return false;
  const list: unknown =
    labels instanceof Set ? [...(labels as Set<unknown>)] : Array.isArray(labels) ? labels : [];
  return Array.isArray(list) && list.some((l) => MONGO_RETRY_LABELS.includes(l as string));
}

/** JSON-RPC / MCP error codes (MCP `ErrorCode`, SDK 1.x and 2.x). */
const JSONRPC: Record<number, ErrorClassification> = {
  [PARSE_ERROR]: invalidInput,
  [INVALID_REQUEST]: invalidInput,
  [METHOD_NOT_FOUND]: { class: 'capability', code: 'capability_unsupported' },
  [INVALID_PARAMS]: invalidInput,
  [INTERNAL_ERROR]: DEFAULT_CLASSIFICATION,
  [CONNECTION_CLOSED]: { class: 'reliability', code: 'upstream_unavailable', retryable: true },
  [REQUEST_TIMEOUT]: { class: 'reliability', code: 'timeout', retryable: true },
  [RESOURCE_NOT_FOUND]: notFound,
  [URL_ELICITATION_REQUIRED]: { class: 'governance', code: 'user_action_required' },
  // 2026-07-28's reserved codes. A header that contradicts the body is a malformed request; a
  // missing client capability or a version the server does not speak is a capability the two
  // sides do not share. None is helped by sending the same request again.
  [HEADER_MISMATCH]: invalidInput,
  [MISSING_REQUIRED_CLIENT_CAPABILITY]: { class: 'capability', code: 'capability_unsupported' },
  [UNSUPPORTED_PROTOCOL_VERSION]: { class: 'capability', code: 'capability_unsupported' },
};

/**
 * What a user's classifier says of `error`, or `undefined` when it says nothing or throws: a
 * broken classifier must not break the tool call, so whatever comes next applies instead.
 */
export function tryClassifier(
  classifier: ErrorClassifier,
  error: unknown,
): ErrorClassification | undefined {
  try {
    return classifier(error);
  } catch {
    return undefined;
  }
}

/**
 * Maps a thrown error to a tool-failure classification. Total: any input, including non-errors
 * and hostile objects, yields a classification. Pure but for the clock (`now`, the system clock
 * by default), read only to turn a `Retry-After` into `retryNotBefore`.
 *
 * Order: the user's classifier, `ToolFailureError`, schema validation errors, HTTP-style
 * statuses, JSON-RPC codes, Node network and system error codes, database driver codes,
 * timeouts and aborts (following `cause`), then `DEFAULT_CLASSIFICATION`.
 */
export function classifyError(error: unknown, options?: ClassifyErrorOptions): ErrorClassification {
  if (options?.classifier !== undefined) {
    const custom = tryClassifier(options.classifier, error);
    if (custom !== undefined) return custom;
  }
  try {
    return classifyBuiltIn(error, options?.now ?? Date.now, 0) ?? { ...DEFAULT_CLASSIFICATION };
  } catch {
    return { ...DEFAULT_CLASSIFICATION };
  }
}

function classifyBuiltIn(
  error: unknown,
  now: () => number,
  depth: number,
): ErrorClassification | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  if (isToolFailureError(error)) {
    const out: ErrorClassification = { class: error.failureClass, code: error.code };
    if (error.retryable !== undefined) out.retryable = error.retryable;
    if (error.retryNotBefore !== undefined) out.retryNotBefore = error.retryNotBefore;
    if (error.agentGuidance !== undefined) out.agentGuidance = error.agentGuidance;
    return out;
  }
  const name = safeGet(error, 'name');
  if (name === 'ZodError' || name === 'ValidationError' || name === 'SchemaValidationError') {
    return { class: 'capability', code: 'invalid_input' };
  }
  const status = httpStatusOf(error);
  if (status !== undefined) {
    const byStatus = classifyStatus(status, error, now);
    if (byStatus !== undefined) return byStatus;
  }
  const code = safeGet(error, 'code');
  if (typeof code === 'number' && JSONRPC[code] !== undefined) return { ...JSONRPC[code] };
  if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return { ...transient };
  if (typeof code === 'string') {
    const byCode = classifyStringCode(error, code);
    if (byCode !== undefined) return byCode;
  }
  if (isMongoTransient(error, name)) return { ...transient };
  if (name === 'TimeoutError') return { class: 'reliability', code: 'timeout', retryable: true };
  if (name === 'AbortError') {
    // An abort by `AbortSignal.timeout()` carries the TimeoutError as its cause (and reason).
    const cause = classifyBuiltIn(safeGet(error, 'cause'), now, depth + 1);
    if (cause?.code === 'timeout') return cause;
    return { class: 'reliability', code: 'cancelled', retryable: false };
  }
  return classifyBuiltIn(safeGet(error, 'cause'), now, depth + 1);
}

function classifyStatus(
  status: number,
  error: object,
  now: () => number,
): ErrorClassification | undefined {
  switch (status) {
    case 400:
    case 422:
      return { class: 'capability', code: 'invalid_input' };
    case 401:
      return { class: 'governance', code: 'auth_required' };
    case 403:
      return { class: 'governance', code: 'permission_denied' };
    case 404:
    case 410:
      return { class: 'capability', code: 'resource_not_found' };
    case 405:
    case 501:
      return { class: 'capability', code: 'capability_unsupported' };
    case 451:
      return { class: 'governance', code: 'policy_blocked' };
    case 408:
    case 425:
    case 429:
    case 502:
    case 503:
    case 504: {
      const out: ErrorClassification = {
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
      };
      const notBefore = retryAfterOf(error, now);
      if (notBefore !== undefined) out.retryNotBefore = notBefore;
      return out;
    }
    default:
      return status >= 500 && status < 600 ? { ...DEFAULT_CLASSIFICATION } : undefined;
  }
}

function httpStatusOf(error: object): number | undefined {
  for (const candidate of [
    safeGet(error, 'status'),
    safeGet(error, 'statusCode'),
    safeGet(safeGet(error, 'response'), 'status'),
  ]) {
    if (
      typeof candidate === 'number' &&
      Number.isInteger(candidate) &&
      candidate >= 100 &&
      candidate < 600
    ) {
      return candidate;
    }
  }
  return undefined;
}

/** `Retry-After` (delta-seconds or an HTTP date) as epoch milliseconds. */
export function parseRetryAfter(value: unknown, now: number): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return now + value * 1000;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return now + Number(trimmed) * 1000;
  // An HTTP date always names a day or month; this keeps Date.parse from reading "-3" as a year.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isFinite(date) ? Math.max(date, now) : undefined;
}

function retryAfterOf(error: object, now: () => number): number | undefined {
  for (const headers of [
    safeGet(error, 'headers'),
    safeGet(safeGet(error, 'response'), 'headers'),
  ]) {
    const value = headerValue(headers, 'retry-after');
    if (value !== undefined) {
      const parsed = parseRetryAfter(value, now());
      if (parsed !== undefined) return parsed;
    }
  }
  const direct = safeGet(error, 'retryAfter');
  return direct === undefined ? undefined : parseRetryAfter(direct, now());
}

function headerValue(headers: unknown, name: string): unknown {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get = safeGet(headers, 'get');
  if (typeof get === 'function') {
    const v: unknown = get.call(headers, name);
    return v ?? undefined;
  }
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return safeGet(headers, key);
  }
  return undefined;
}
