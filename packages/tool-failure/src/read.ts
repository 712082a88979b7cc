import { isRecord, ownData } from './wire/safe.js';
import { checkFailureFields } from './check.js';
import { TOOL_FAILURE_META_KEY } from './constants.js';
import { TOOL_FAILURE_RULES as R, type ToolFailureRule } from './rules.js';
import type { ToolFailure, ToolFailureProblem, ToolFailureReading } from './types.js';

/** Options for `readToolFailure`. */
export interface ReadToolFailureOptions {
  /** The `_meta` key to read. @default TOOL_FAILURE_META_KEY */
  metaKey?: string;
}

/**
 * Reads the tool-failure object of a received `CallToolResult`.
 *
 * Never throws and never runs accessors of the input: it only looks at own data
 * properties, so getters, proxies and `__proto__` keys cannot hurt the caller.
 * A valid failure is returned as a shallow copy with unknown keys kept as they came.
 */
export function readToolFailure(
  result: unknown,
  options?: ReadToolFailureOptions,
): ToolFailureReading {
  try {
    return readUnsafe(result, options?.metaKey ?? TOOL_FAILURE_META_KEY);
  } catch {
    return unreadable('the result could not be read as plain data');
  }
}

function readUnsafe(result: unknown, metaKey: string): ToolFailureReading {
  if (!isRecord(result)) return { status: 'absent', problems: [] };
  const meta = ownData(result, '_meta');
  if (meta === undefined) return { status: 'absent', problems: [] };
  return readMetaUnsafe(meta, result, undefined, metaKey);
}

/**
 * `readToolFailure` for a caller that has already read the result's own `_meta` (not
 * undefined) and `isError` as own data: the instrumentation's client reads both anyway, and
 * each read of an own data property allocates a descriptor. The same rules, never throws.
 */
export function readToolFailureMeta(
  meta: unknown,
  isError: boolean,
  metaKey: string,
): ToolFailureReading {
  try {
    return readMetaUnsafe(meta, undefined, isError, metaKey);
  } catch {
    return unreadable('the result could not be read as plain data');
  }
}

/** The failure of `_meta`; `isError` as read, else read from `result` only when needed. */
function readMetaUnsafe(
  meta: unknown,
  result: Record<string, unknown> | undefined,
  isError: boolean | undefined,
  metaKey: string,
): ToolFailureReading {
  if (!isRecord(meta)) {
    return { status: 'absent', problems: [problem(R.META_OBJECT, '_meta is not an object')] };
  }
  const desc = Object.getOwnPropertyDescriptor(meta, metaKey);
  if (desc === undefined) return { status: 'absent', problems: [] };
  if (!('value' in desc)) {
    return unreadable('the toolFailure key is an accessor');
  }
  const raw: unknown = desc.value;
  const problems: ToolFailureProblem[] = [];
  if ((isError ?? (result !== undefined && ownData(result, 'isError') === true)) !== true) {
    problems.push(
      problem(R.ONLY_ON_ERROR, 'toolFailure is present on a result without isError: true'),
    );
  }
  return readObject(raw, problems);
}

/**
 * Reads a bare failure object (one already taken out of `_meta`, or one a caller built) by the
 * same rules as {@link readToolFailure}; never throws, never runs accessors.
 */
export function readFailureObject(raw: unknown): ToolFailureReading {
  try {
    return readObject(raw, []);
  } catch {
    return unreadable('the failure object could not be read as plain data');
  }
}

function readObject(raw: unknown, problems: ToolFailureProblem[]): ToolFailureReading {
  if (!isRecord(raw)) {
    problems.push(problem(R.FAILURE_OBJECT, 'toolFailure is not an object'));
    return { status: 'invalid', raw, problems };
  }
  // Own enumerable string keys, in order, copied onto a plain object of our own; their
  // descriptors say whether any is an accessor. Unknown keys are kept as they came.
  const out: Record<string, unknown> = {};
  const keys = Object.keys(raw);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const d = Object.getOwnPropertyDescriptor(raw, key);
    if (d === undefined || !d.enumerable) continue;
    if (!('value' in d)) {
      problems.push(problem(R.UNREADABLE, 'toolFailure has an accessor property'));
      return { status: 'invalid', raw, problems };
    }
    // "__proto__" is the one key an assignment would not make an own data key (it would set
    // the prototype): defineProperty keeps it a plain key. Every other key is assigned.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: d.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = d.value;
  }
  for (const p of checkFailureFields(out)) problems.push(p);
  return problems.some((p) => p.severity === 'error')
    ? { status: 'invalid', raw, problems }
    : { status: 'valid', failure: out as ToolFailure, problems };
}

/** The reading of something that could not be read as plain data. */
function unreadable(message: string): ToolFailureReading {
  return { status: 'invalid', raw: undefined, problems: [problem(R.UNREADABLE, message)] };
}

function problem(r: ToolFailureRule, message: string): ToolFailureProblem {
  return { rule: r.id, severity: r.severity, message };
}
