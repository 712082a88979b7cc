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

/** An own string property, non-empty. */
export function ownString(obj: unknown, key: string): string | undefined {
  const v = ownValue(obj, key);
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** True for a plain, non-array object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
