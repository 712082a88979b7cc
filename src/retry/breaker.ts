import type {
  CircuitBreakerOptions,
  CircuitOutcome,
  CircuitState,
  CircuitTransition,
} from './types.js';

/** The defaults of `CircuitBreakerOptions` (the reasons are in docs/proxy.md, "Circuit breaking"). */
export const DEFAULT_CIRCUIT_BREAKER: Readonly<Required<CircuitBreakerOptions>> = Object.freeze({
  failureThreshold: 5,
  openMs: 10_000,
  halfOpenProbes: 1,
  maxCircuits: 1000,
});

/** What `admit` says about one call. */
export type CircuitAdmission =
  | {
      allowed: true;
      /** The permit to hand back to `record` once the call is over. */
      permit: CircuitPermit;
      transition: CircuitTransition | undefined;
    }
  | {
      allowed: false;
      /** The circuit's state (`open`, or `half_open` with every probe slot taken). */
      state: Exclude<CircuitState, 'closed'>;
      /** Epoch milliseconds from which a call is likely to be let through again. */
      retryAt: number;
      transition: CircuitTransition | undefined;
    };

/** An admitted call. Opaque to callers; `record` it exactly once. */
export interface CircuitPermit {
  readonly key: string;
  readonly probe: boolean;
  readonly epoch: number;
}

/**
 * One circuit per key (a tool of the upstream the engine protects): closed → open after
 * `failureThreshold` consecutive failures; open for `openMs`; then half-open, letting
 * `halfOpenProbes` calls through at a time: the first probe that succeeds closes it, the
 * first that fails opens it again for `openMs`. Pure: no timers, the time is passed in.
 */
export interface CircuitBreaker {
  /** Whether a call of `key` may go out at `now` (moves an open circuit past its cool-down to half-open). */
  admit(key: string, now: number): CircuitAdmission;
  /** Ends an admitted call; returns the transition it caused, if any. */
  record(
    permit: CircuitPermit,
    outcome: CircuitOutcome,
    now: number,
  ): CircuitTransition | undefined;
  /** The state of `key` at `now` (`closed` for a key never seen); changes nothing. */
  state(key: string, now: number): CircuitState;
  /** Until when `key` is open (epoch milliseconds), or `undefined` when it is not open at `now`. */
  openUntil(key: string, now: number): number | undefined;
  /** Every circuit kept, with its state at `now` (for the state metric). */
  states(now: number): Array<[string, CircuitState]>;
}

interface Circuit {
  state: CircuitState;
  failures: number;
  openedAt: number;
  probes: number;
  /** Bumped on every transition: a permit from an earlier state cannot move this one. */
  epoch: number;
}

/** Resolves and checks the options (a bad value is a `RangeError` naming it). */
export function resolveCircuitBreaker(
  options: CircuitBreakerOptions | undefined,
): Readonly<Required<CircuitBreakerOptions>> {
  const resolved = { ...DEFAULT_CIRCUIT_BREAKER, ...definedOf(options) };
  const { failureThreshold, openMs, halfOpenProbes, maxCircuits } = resolved;
  if (!(Number.isInteger(failureThreshold) && failureThreshold >= 1))
    throw new RangeError('circuitBreaker.failureThreshold must be an integer >= 1');
  if (!(Number.isFinite(openMs) && openMs > 0))
    throw new RangeError('circuitBreaker.openMs must be a finite number > 0');
  if (!(Number.isInteger(halfOpenProbes) && halfOpenProbes >= 1))
    throw new RangeError('circuitBreaker.halfOpenProbes must be an integer >= 1');
  if (!(Number.isInteger(maxCircuits) && maxCircuits >= 1))
    throw new RangeError('circuitBreaker.maxCircuits must be an integer >= 1');
  return Object.freeze(resolved);
}

/** Creates the breaker state machine for `options` (see `CircuitBreaker`). */
export function createCircuitBreaker(options?: CircuitBreakerOptions): CircuitBreaker {
  const { failureThreshold, openMs, halfOpenProbes, maxCircuits } = resolveCircuitBreaker(options);
  // Only keys that ever failed are kept; closed ones go first when the table is full.
  const circuits = new Map<string, Circuit>();

  const move = (key: string, c: Circuit, to: CircuitState, now: number): CircuitTransition => {
    const from = c.state;
    c.state = to;
    c.epoch += 1;
    c.probes = 0;
    if (to === 'open') c.openedAt = now;
    if (to === 'closed') c.failures = 0;
    return Object.freeze({ key, from, to });
  };

  const keep = (key: string): Circuit => {
    let c = circuits.get(key);
    if (c !== undefined) return c;
    if (circuits.size >= maxCircuits) evictOne();
    c = { state: 'closed', failures: 0, openedAt: 0, probes: 0, epoch: 0 };
    circuits.set(key, c);
    return c;
  };

  const evictOne = (): void => {
    for (const [key, c] of circuits) {
      if (c.state === 'closed') {
        circuits.delete(key);
        return;
      }
    }
    const oldest = circuits.keys().next();
    if (oldest.done !== true) circuits.delete(oldest.value);
  };

  const stateOf = (c: Circuit | undefined, now: number): CircuitState => {
    if (c === undefined) return 'closed';
    return c.state === 'open' && now >= c.openedAt + openMs ? 'half_open' : c.state;
  };

  return {
    admit(key, now) {
      const c = circuits.get(key);
      if (c === undefined || c.state === 'closed')
        return {
          allowed: true,
          permit: { key, probe: false, epoch: c?.epoch ?? 0 },
          transition: undefined,
        };
      let transition: CircuitTransition | undefined;
      if (c.state === 'open') {
        const halfOpenAt = c.openedAt + openMs;
        if (now < halfOpenAt)
          return { allowed: false, state: 'open', retryAt: halfOpenAt, transition: undefined };
        transition = move(key, c, 'half_open', now);
      }
      if (c.probes >= halfOpenProbes)
        // The probes decide; if they fail, the circuit stays open for openMs from then.
        return { allowed: false, state: 'half_open', retryAt: now + openMs, transition };
      c.probes += 1;
      return { allowed: true, permit: { key, probe: true, epoch: c.epoch }, transition };
    },

    record(permit, outcome, now) {
      const existing = circuits.get(permit.key);
      if (existing === undefined && outcome !== 'failure') return undefined;
      const c = existing ?? keep(permit.key);
      const current = permit.epoch === c.epoch;
      if (c.state === 'half_open') {
        // Only a probe of this half-open period moves it; anything older is stale news.
        if (!permit.probe || !current) return undefined;
        if (outcome === 'success') return move(permit.key, c, 'closed', now);
        if (outcome === 'failure') return move(permit.key, c, 'open', now);
        c.probes = Math.max(0, c.probes - 1);
        return undefined;
      }
      if (c.state === 'open') return undefined;
      // A call admitted before the circuit last moved says nothing about this closed period.
      if (!current) return undefined;
      if (outcome === 'success') c.failures = 0;
      else if (outcome === 'failure') {
        c.failures += 1;
        if (c.failures >= failureThreshold) return move(permit.key, c, 'open', now);
      }
      return undefined;
    },

    state: (key, now) => stateOf(circuits.get(key), now),

    openUntil(key, now) {
      const c = circuits.get(key);
      if (c?.state !== 'open') return undefined;
      const until = c.openedAt + openMs;
      return now < until ? until : undefined;
    },

    states: (now) => [...circuits].map(([key, c]) => [key, stateOf(c, now)]),
  };
}

function definedOf(options: CircuitBreakerOptions | undefined): CircuitBreakerOptions {
  const out: CircuitBreakerOptions = {};
  if (options === undefined) return out;
  if (typeof options !== 'object' || options === null)
    throw new RangeError('circuitBreaker must be a boolean or an options object');
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(DEFAULT_CIRCUIT_BREAKER, key))
      throw new RangeError(`circuitBreaker has no option "${key}"`);
  }
  for (const key of ['failureThreshold', 'openMs', 'halfOpenProbes', 'maxCircuits'] as const) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out;
}
