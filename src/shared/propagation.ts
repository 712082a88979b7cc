import { ROOT_CONTEXT, propagation, type Context, type TextMapGetter } from '@opentelemetry/api';
import { assignOwn, copyWith, isRecord, ownValue } from '@omcp/tool-failure/wire';

const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys(carrier) {
    try {
      return Object.keys(carrier);
    } catch {
      return [];
    }
  },
  get(carrier, key) {
    try {
      const d = Object.getOwnPropertyDescriptor(carrier, key);
      const v: unknown = d !== undefined && 'value' in d ? d.value : undefined;
      if (typeof v === 'string') return v;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
      return undefined;
    } catch {
      return undefined;
    }
  },
};

/**
 * Returns `params` with the trace context of `ctx` injected into a copy of `params._meta`
 * (keys the caller set are kept, and win over ours). The caller's objects are never mutated;
 * when the propagator writes nothing, `params` itself is returned.
 */
export function injectIntoParams(params: unknown, ctx: Context): unknown {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  if (isEmpty(carrier)) return params;
  if (params !== undefined && !isRecord(params)) return params;
  const base = params ?? {};
  const meta: unknown = base._meta;
  // A _meta the caller set to something other than an object is theirs to send as it is.
  if (meta !== undefined && !isRecord(meta)) return params;
  // The carrier is ours and fresh: it becomes the new _meta, the caller's keys copied over it.
  return copyWith(base, '_meta', meta === undefined ? carrier : assignOwn(carrier, meta));
}

function isEmpty(carrier: Record<string, string>): boolean {
  for (const _ in carrier) return false;
  return true;
}

/** The remote context carried in `params._meta`, or `undefined` when none is there. */
export function extractFromParams(params: unknown): Context | undefined {
  try {
    const meta = ownValue(params, '_meta');
    if (!isRecord(meta)) return undefined;
    const ctx = propagation.extract(ROOT_CONTEXT, meta, metaGetter);
    return ctx === ROOT_CONTEXT ? undefined : ctx;
  } catch {
    // A hostile _meta or a broken propagator: no remote parent, the call goes on.
    return undefined;
  }
}
