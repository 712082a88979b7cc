/** An own data property, read without running accessors; `undefined` on anything odd. */
export function ownValue(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  try {
    const d = Object.getOwnPropertyDescriptor(obj, key);
    return d !== undefined && 'value' in d ? d.value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A property of an object the MCP SDK itself builds or reads plainly (a JSON-RPC envelope's
 * `method`, `id`, `params`, `result`, `error`; the SDK's own protocol instance): read the same
 * way, without the descriptor `ownValue` allocates. Objects a user wrote (tool results, `_meta`,
 * arguments) are read with `ownValue`. The caller's try/catch covers a throwing getter.
 */
export function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null
    ? (obj as Record<string, unknown>)[key]
    : undefined;
}

/** An own string property, non-empty. */
export function ownString(obj: unknown, key: string): string | undefined {
  const v = ownValue(obj, key);
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** True for a plain, non-array object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
