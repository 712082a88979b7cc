import type { BackoffOptions, JitterStrategy } from './types.js';

/** The defaults of `BackoffOptions`. */
export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  multiplier: 2,
  jitter: 'full',
});

/** Fills and validates backoff options; throws a `RangeError` on nonsense (a configuration error). */
export function resolveBackoff(options?: Partial<BackoffOptions>): BackoffOptions {
  const resolved: BackoffOptions = { ...DEFAULT_BACKOFF, ...options };
  const { initialDelayMs, maxDelayMs, multiplier, jitter } = resolved;
  if (!(Number.isFinite(initialDelayMs) && initialDelayMs >= 0))
    throw new RangeError('backoff.initialDelayMs must be a finite number >= 0');
  if (!(Number.isFinite(maxDelayMs) && maxDelayMs >= initialDelayMs))
    throw new RangeError('backoff.maxDelayMs must be a finite number >= initialDelayMs');
  if (!(Number.isFinite(multiplier) && multiplier >= 1))
    throw new RangeError('backoff.multiplier must be a finite number >= 1');
  if (!JITTERS.has(jitter)) throw new RangeError(`backoff.jitter must be one of ${[...JITTERS]}`);
  return resolved;
}

const JITTERS: ReadonlySet<JitterStrategy> = new Set(['none', 'full', 'equal', 'decorrelated']);

/**
 * The capped exponential delay after failed attempt `attempt` (1-based), before jitter:
 * `min(maxDelayMs, initialDelayMs * multiplier^(attempt - 1))`.
 */
export function exponentialDelay(attempt: number, opts: BackoffOptions): number {
  const n = Math.max(1, Math.floor(Number.isFinite(attempt) ? attempt : 1));
  const raw = opts.initialDelayMs * Math.pow(opts.multiplier, n - 1);
  return Number.isFinite(raw) ? Math.min(opts.maxDelayMs, raw) : opts.maxDelayMs;
}

/** Full jitter: uniform in `[0, exponentialDelay)`. */
export function fullJitter(attempt: number, opts: BackoffOptions, random: () => number): number {
  return exponentialDelay(attempt, opts) * unit(random);
}

/** Equal jitter: uniform in `[exponentialDelay / 2, exponentialDelay)`. */
export function equalJitter(attempt: number, opts: BackoffOptions, random: () => number): number {
  const base = exponentialDelay(attempt, opts);
  return base / 2 + (base / 2) * unit(random);
}

/**
 * Decorrelated jitter (AWS): uniform in `[initialDelayMs, 3 * previousDelayMs)`, capped.
 * The first delay uses `initialDelayMs` as the previous one.
 */
export function decorrelatedJitter(
  previousDelayMs: number | undefined,
  opts: BackoffOptions,
  random: () => number,
): number {
  const prev = Math.max(opts.initialDelayMs, previousDelayMs ?? opts.initialDelayMs);
  const upper = Math.max(opts.initialDelayMs, prev * 3);
  return Math.min(
    opts.maxDelayMs,
    opts.initialDelayMs + (upper - opts.initialDelayMs) * unit(random),
  );
}

/**
 * The backoff delay after failed attempt `attempt`, with the configured jitter. Pure:
 * the same inputs give the same delay. `previousDelayMs` only matters for `decorrelated`.
 */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions,
  random: () => number,
  previousDelayMs?: number,
): number {
  switch (opts.jitter) {
    case 'none':
      return exponentialDelay(attempt, opts);
    case 'equal':
      return equalJitter(attempt, opts, random);
    case 'decorrelated':
      return decorrelatedJitter(previousDelayMs, opts, random);
    case 'full':
    default:
      return fullJitter(attempt, opts, random);
  }
}

/** A random number clamped into [0, 1), whatever the injected source returns. */
function unit(random: () => number): number {
  const r = random();
  if (!Number.isFinite(r) || r <= 0) return 0;
  return r >= 1 ? 1 - Number.EPSILON : r;
}
