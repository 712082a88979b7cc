import { isRecord, ownValue } from '@omcp/tool-failure/wire';

/**
 * This package's own `_meta` key on a `tools/call` request: the attempt number (2, 3, ...) a
 * retrying caller (`withToolRetry`, the proxy) puts on every attempt after the first, so the
 * server span records it. A reverse-DNS prefix of ours, outside MCP's reserved ones.
 */
export const ATTEMPT_META_KEY = 'dev.omcp/attempt';

/**
 * The `tools/call` params of attempt `attempt`: unchanged for the first attempt (a first try
 * goes out exactly as the caller wrote it), otherwise a copy whose `_meta` (also a copy) names
 * the attempt under `ATTEMPT_META_KEY`, replacing a value an earlier retrying layer put there.
 * Params or a `_meta` that are not objects are left alone.
 */
export function withAttemptMeta(params: unknown, attempt: number): unknown {
  if (attempt < 2 || !isRecord(params)) return params;
  const meta = ownValue(params, '_meta');
  if (meta !== undefined && !isRecord(meta)) return params;
  return { ...params, _meta: { ...meta, [ATTEMPT_META_KEY]: attempt } };
}

/** The largest attempt number the server records; anything beyond it is not an attempt count. */
const MAX_ATTEMPT = 2 ** 31 - 1;

/**
 * The attempt a caller marked in `params._meta`, when it is an integer from 2 up; `undefined`
 * for anything else (absent, 1, not a number, fractional, huge), without ever throwing.
 */
export function attemptOfMeta(params: unknown): number | undefined {
  const value = ownValue(ownValue(params, '_meta'), ATTEMPT_META_KEY);
  return typeof value === 'number' && Number.isInteger(value) && value >= 2 && value <= MAX_ATTEMPT
    ? value
    : undefined;
}
