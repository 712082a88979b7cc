// The shipped collector's tail-sampling policy (observability/otel-collector/config.yaml),
// applied to recorded spans: there is no collector binary on this machine (no Docker, and
// otelcol-contrib is in neither npm nor Debian), so the section evaluates the same policies
// the same way. A trace is kept when any policy keeps it:
//   tool-failures   string_attribute mcp.tool.failure.class in [capability, reliability, governance]
//   errors          status_code ERROR
//   retried-calls   numeric_attribute mcp.tool.call.attempts in [2, 1000]
//   the-rest        probabilistic 10 %: FNV-1a 64 of the hash salt and the 16 trace ID bytes,
//                   kept when at most 10 % of 2^64 - 1 (the contrib sampler's rule)
// The policy's values are read from the config file, so an edit of the file is measured.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const CONFIG = fileURLToPath(
  new URL('../../observability/otel-collector/config.yaml', import.meta.url),
);
/** The contrib probabilistic policy's salt when none is configured. */
const DEFAULT_SALT = 'default-hash-seed';
const STATUS_CODES = { UNSET: 0, OK: 1, ERROR: 2 };

/** The policies of the shipped configuration's tail_sampling processor. */
export function shippedPolicies(file = CONFIG) {
  return parse(readFileSync(file, 'utf8')).processors.tail_sampling.policies;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** FNV-1a, 64 bits, of `bytes`. */
export function fnv1a64(bytes) {
  let h = FNV_OFFSET;
  for (const b of bytes) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK;
  return h;
}

/** Whether the probabilistic policy keeps the trace with this (hex) ID. */
export function probabilisticKeeps(traceId, percentage, salt = DEFAULT_SALT) {
  const bytes = [...Buffer.from(salt, 'utf8'), ...Buffer.from(traceId, 'hex')];
  const threshold = BigInt(Math.floor((percentage / 100) * Number(MASK)));
  return fnv1a64(bytes) <= threshold;
}

/** Whether one deterministic (non-probabilistic) policy keeps a trace of these spans. */
function keptBy(policy, spans) {
  switch (policy.type) {
    case 'string_attribute': {
      const { key, values } = policy.string_attribute;
      return spans.some((s) => values.includes(s.attributes[key]));
    }
    case 'status_code': {
      const codes = policy.status_code.status_codes.map((c) => STATUS_CODES[c]);
      return spans.some((s) => codes.includes(s.status));
    }
    case 'numeric_attribute': {
      const { key, min_value: min, max_value: max } = policy.numeric_attribute;
      return spans.some(
        (s) =>
          typeof s.attributes[key] === 'number' &&
          s.attributes[key] >= min &&
          s.attributes[key] <= max,
      );
    }
    default:
      throw new Error(`tail-sampling policy type ${policy.type} is not evaluated by the bench`);
  }
}

/**
 * The decision for one trace (`spans`: `{ status, attributes }` each): `kept` when a
 * deterministic policy keeps it, otherwise the probabilistic policy's share (`chance`, 0..1)
 * and what its hash decided for this trace ID (`hashed`).
 */
export function decide(traceId, spans, policies = shippedPolicies()) {
  const deterministic = policies.filter((p) => p.type !== 'probabilistic');
  const matched = deterministic.filter((p) => keptBy(p, spans)).map((p) => p.name);
  if (matched.length > 0) return { kept: true, chance: 1, hashed: true, matched };
  const probabilistic = policies.find((p) => p.type === 'probabilistic');
  const pct = probabilistic?.probabilistic.sampling_percentage ?? 0;
  const salt = probabilistic?.probabilistic.hash_salt ?? DEFAULT_SALT;
  return {
    kept: false,
    chance: pct / 100,
    hashed: probabilisticKeeps(traceId, pct, salt),
    matched,
  };
}

/**
 * The decisions over every trace of a run's spans (`{ traceId, status, attributes }` each):
 * how many traces, how many a deterministic policy keeps, how many the hash keeps besides, and
 * the share of the traces kept on expectation.
 */
export function sampleTraces(spans, policies = shippedPolicies()) {
  const traces = new Map();
  for (const s of spans) {
    if (!traces.has(s.traceId)) traces.set(s.traceId, []);
    traces.get(s.traceId).push(s);
  }
  const decisions = [...traces].map(([id, list]) => decide(id, list, policies));
  return {
    traces: decisions.length,
    keptByPolicy: decisions.filter((d) => d.kept).length,
    keptByHash: decisions.filter((d) => d.kept || d.hashed).length,
    expectedShare: decisions.reduce((a, d) => a + (d.kept ? 1 : d.chance), 0) / decisions.length,
    matched: [...new Set(decisions.flatMap((d) => d.matched))],
  };
}
