/** The breaker as a pure state machine: the time is passed in, nothing waits. */
import { describe, expect, it } from 'vitest';
import { createCircuitBreaker, DEFAULT_CIRCUIT_BREAKER } from '../../src/retry/index.js';
import type { CircuitBreaker, CircuitOutcome } from '../../src/retry/index.js';
import { T0 } from './fake-time.js';

/** One admitted call of `key` at `now`, ended with `outcome`; returns the transition. */
function call(b: CircuitBreaker, key: string, now: number, outcome: CircuitOutcome) {
  const admission = b.admit(key, now);
  if (!admission.allowed) throw new Error(`not admitted at ${now - T0}`);
  return b.record(admission.permit, outcome, now);
}

describe('createCircuitBreaker()', () => {
  it('defaults: 5 consecutive failures, open 10 s, one probe', () => {
    expect(DEFAULT_CIRCUIT_BREAKER).toEqual({
      failureThreshold: 5,
      openMs: 10_000,
      halfOpenProbes: 1,
      maxCircuits: 1000,
    });
  });

  it('opens after N consecutive failures; a success in between resets the count', () => {
    const b = createCircuitBreaker({ failureThreshold: 3 });
    call(b, 't', T0, 'failure');
    call(b, 't', T0, 'failure');
    call(b, 't', T0, 'success');
    call(b, 't', T0, 'failure');
    call(b, 't', T0, 'failure');
    expect(b.state('t', T0)).toBe('closed');
    expect(call(b, 't', T0 + 1, 'failure')).toEqual({ key: 't', from: 'closed', to: 'open' });
    expect(b.state('t', T0 + 1)).toBe('open');
    expect(b.admit('t', T0 + 2)).toMatchObject({
      allowed: false,
      state: 'open',
      retryAt: T0 + 1 + 10_000,
    });
    expect(b.openUntil('t', T0 + 2)).toBe(T0 + 1 + 10_000);
  });

  it('ignored outcomes (aborts) neither count nor reset', () => {
    const b = createCircuitBreaker({ failureThreshold: 2 });
    call(b, 't', T0, 'failure');
    call(b, 't', T0, 'ignored');
    expect(call(b, 't', T0, 'failure')?.to).toBe('open');
  });

  it('keeps one circuit per key', () => {
    const b = createCircuitBreaker({ failureThreshold: 1 });
    call(b, 'a', T0, 'failure');
    expect(b.state('a', T0)).toBe('open');
    expect(b.state('b', T0)).toBe('closed');
    expect(b.admit('b', T0).allowed).toBe(true);
  });

  it('half-opens after openMs, lets one probe through; its success closes', () => {
    const b = createCircuitBreaker({ failureThreshold: 1, openMs: 1000 });
    call(b, 't', T0, 'failure');
    expect(b.admit('t', T0 + 999).allowed).toBe(false);
    expect(b.state('t', T0 + 1000)).toBe('half_open');
    const probe = b.admit('t', T0 + 1000);
    expect(probe).toMatchObject({
      allowed: true,
      permit: { probe: true },
      transition: { from: 'open', to: 'half_open' },
    });
    // A second caller while the probe is out is refused, told to come back after openMs.
    expect(b.admit('t', T0 + 1001)).toMatchObject({
      allowed: false,
      state: 'half_open',
      retryAt: T0 + 2001,
      transition: undefined,
    });
    if (!probe.allowed) throw new Error('unreachable');
    expect(b.record(probe.permit, 'success', T0 + 1100)).toEqual({
      key: 't',
      from: 'half_open',
      to: 'closed',
    });
    expect(b.state('t', T0 + 1100)).toBe('closed');
    // Closed again with a fresh count.
    expect(call(b, 't', T0 + 1200, 'failure')?.to).toBe('open');
  });

  it('a failed probe reopens for another openMs', () => {
    const b = createCircuitBreaker({ failureThreshold: 2, openMs: 1000 });
    call(b, 't', T0, 'failure');
    call(b, 't', T0, 'failure');
    expect(call(b, 't', T0 + 1000, 'failure')).toEqual({
      key: 't',
      from: 'half_open',
      to: 'open',
    });
    expect(b.admit('t', T0 + 1999)).toMatchObject({ allowed: false, retryAt: T0 + 2000 });
    expect(b.admit('t', T0 + 2000).allowed).toBe(true);
  });

  it('an aborted probe frees its slot without deciding', () => {
    const b = createCircuitBreaker({ failureThreshold: 1, openMs: 1000 });
    call(b, 't', T0, 'failure');
    expect(call(b, 't', T0 + 1000, 'ignored')).toBeUndefined();
    expect(b.state('t', T0 + 1000)).toBe('half_open');
    expect(call(b, 't', T0 + 1001, 'success')?.to).toBe('closed');
  });

  it('halfOpenProbes lets that many probes out at once; the first answer decides', () => {
    const b = createCircuitBreaker({ failureThreshold: 1, openMs: 1000, halfOpenProbes: 2 });
    call(b, 't', T0, 'failure');
    const p1 = b.admit('t', T0 + 1000);
    const p2 = b.admit('t', T0 + 1000);
    expect(p1.allowed && p2.allowed).toBe(true);
    expect(b.admit('t', T0 + 1000).allowed).toBe(false);
    if (!p1.allowed || !p2.allowed) throw new Error('unreachable');
    expect(b.record(p1.permit, 'failure', T0 + 1001)?.to).toBe('open');
    // The other probe's late success is stale: the circuit stays open.
    expect(b.record(p2.permit, 'success', T0 + 1002)).toBeUndefined();
    expect(b.state('t', T0 + 1002)).toBe('open');
  });

  it('results of calls admitted before the circuit opened do not move it', () => {
    const b = createCircuitBreaker({ failureThreshold: 1, openMs: 1000 });
    const early = b.admit('t', T0);
    call(b, 't', T0, 'failure');
    if (!early.allowed) throw new Error('unreachable');
    expect(b.record(early.permit, 'success', T0 + 1)).toBeUndefined();
    expect(b.state('t', T0 + 1)).toBe('open');
  });

  it('a slow call from before the circuit opened does not count against the next closed period', () => {
    const b = createCircuitBreaker({ failureThreshold: 2, openMs: 1000 });
    const slow = b.admit('t', T0);
    call(b, 't', T0, 'failure');
    call(b, 't', T0, 'failure'); // open
    call(b, 't', T0 + 1000, 'success'); // the probe closes it
    call(b, 't', T0 + 1001, 'failure'); // 1 failure of 2 in the new closed period
    if (!slow.allowed) throw new Error('unreachable');
    // The slow call ends now, failing: were it counted, the circuit would open again.
    expect(b.record(slow.permit, 'failure', T0 + 1002)).toBeUndefined();
    expect(b.state('t', T0 + 1002)).toBe('closed');
  });

  it('keeps at most maxCircuits, dropping closed ones first', () => {
    const b = createCircuitBreaker({ failureThreshold: 2, maxCircuits: 2 });
    call(b, 'a', T0, 'failure');
    call(b, 'a', T0, 'failure'); // a: open
    call(b, 'b', T0, 'failure'); // b: closed, 1 failure
    call(b, 'c', T0, 'failure'); // evicts b
    expect(b.states(T0).map(([k]) => k)).toEqual(['a', 'c']);
    expect(b.state('a', T0)).toBe('open');
    // A key that never failed is never kept.
    call(b, 'd', T0, 'success');
    expect(b.states(T0)).toHaveLength(2);
  });

  it('refuses bad thresholds with a RangeError naming the option', () => {
    expect(() => createCircuitBreaker({ failureThreshold: 0 })).toThrow(/failureThreshold/);
    expect(() => createCircuitBreaker({ openMs: -1 })).toThrow(/openMs/);
    expect(() => createCircuitBreaker({ halfOpenProbes: 1.5 })).toThrow(/halfOpenProbes/);
    expect(() => createCircuitBreaker({ maxCircuits: 0 })).toThrow(/maxCircuits/);
    // A misspelt option is not ignored.
    expect(() => createCircuitBreaker({ threshold: 3 } as never)).toThrow(
      /circuitBreaker has no option "threshold"/,
    );
  });
});
