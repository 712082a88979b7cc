/**
 * An own data property, read without running accessors; what a hostile proxy's traps throw is
 * thrown (the failure reader reports such an object as unreadable).
 */
export function ownData(obj: object, key: string): unknown {
  const d = Object.getOwnPropertyDescriptor(obj, key);
  return d !== undefined && 'value' in d ? d.value : undefined;
}

/** An own data property, read without running accessors; `undefined` on anything odd. */
export function ownValue(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  try {
    return ownData(obj, key);
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

/**
 * A property, own or inherited (an error's `name`, a getter of the SDK's error classes), read
 * without letting a throwing getter escape; `undefined` on anything odd.
 */
export function safeGet(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  try {
    return (obj as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** An own string property, non-empty. */
export function ownString(obj: unknown, key: string): string | undefined {
  const v = ownValue(obj, key);
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * A shallow copy of `obj` (own enumerable keys, as object spread copies them) with `key` set to
 * `value`. Not `{ ...obj, [key]: value }`: in the V8 of Node 20 an object spread followed by a
 * key the source lacks takes a slow path, about 0.8 µs against 0.05 µs for this. An object with
 * its own `__proto__` key (JSON can make one) is copied by spread, which keeps that key a plain
 * property where `Object.assign` would set the copy's prototype.
 */
export function copyWith(obj: object, key: string, value: unknown): Record<string, unknown> {
  if (key === '__proto__' || Object.hasOwn(obj, '__proto__')) return { ...obj, [key]: value };
  const out = Object.assign({}, obj) as Record<string, unknown>;
  out[key] = value;
  return out;
}

/**
 * `extra`'s own enumerable keys copied onto `target` (a fresh object of ours), `extra` winning;
 * spread semantics for an own `__proto__` key, as in `copyWith`.
 */
export function assignOwn(target: Record<string, unknown>, extra: object): Record<string, unknown> {
  return Object.hasOwn(extra, '__proto__') ? { ...target, ...extra } : Object.assign(target, extra);
}

/** True for a plain, non-array object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
