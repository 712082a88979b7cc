import { context, type Context, type Span } from '@opentelemetry/api';
import { hintsOf, retryHintsOf } from '../shared/tool-annotations.js';
import { summaryOfFailure } from '@omcp/tool-failure';
import { circuitOutcomeOf, endOfStop, type AttemptOutcome } from './attempt-outcome.js';
import { backoffDelay } from './backoff.js';
import type { CircuitAdmission, CircuitBreaker } from './breaker.js';
import { decide, decideOn } from './decide.js';
import type { CallEnd, RetryTelemetry } from './telemetry.js';
import type { RetryableClient } from './types.js';
import type {
  BackoffOptions,
  CircuitOutcome,
  DecideContext,
  RetryBudget,
  RetryClock,
  RetryDecision,
  RetryLimits,
  ToolRetryAnnotations,
  ToolRetryPolicy,
} from './types.js';

/** One logical call as the decision path follows it, attempt after attempt. */
export interface LogicalCall {
  readonly client: RetryableClient;
  readonly toolName: string;
  /** The INTERNAL span of the logical call, and the context holding it. */
  readonly span: Span;
  readonly ctx: Context;
  /** When the logical call started (the engine's clock). */
  readonly start: number;
  /** The attempt under way or just ended, 1-based (the engine counts them). */
  attempt: number;
  /** The backoff of the last retry, for decorrelated jitter (set here, when a retry is taken). */
  previousBackoff: number | undefined;
}

/** What the decision path says after an attempt: wait and try again, or end the call so. */
export type AttemptStep =
  | { action: 'retry'; decision: RetryDecision & { action: 'retry' } }
  | { action: 'end'; end: CallEnd };

/** What the decision path works with: the engine's resolved policy and its long-lived state. */
export interface DecisionPathParts {
  readonly policy: ToolRetryPolicy;
  readonly limits: RetryLimits;
  readonly backoff: BackoffOptions;
  readonly budget: RetryBudget | undefined;
  readonly breaker: CircuitBreaker | undefined;
  readonly clock: RetryClock;
  readonly random: () => number;
  readonly telemetry: RetryTelemetry;
}

/**
 * The engine's one path from an attempt's outcome to the next step, the same for a returned
 * result and a thrown error: the breaker's admission before the attempt; after it the retry
 * budget and the circuit are told, then the decision on the class, with the backoff, held for
 * an open circuit. The wait itself is the engine's.
 */
export class DecisionPath {
  constructor(private readonly parts: DecisionPathParts) {}

  /** Asks the breaker whether the next attempt may go out; records a transition on the span. */
  admit(span: Span, toolName: string): CircuitAdmission | undefined {
    const { breaker, clock, telemetry } = this.parts;
    if (breaker === undefined || !this.hasCircuit(toolName)) return undefined;
    const admission = breaker.admit(toolName, clock.now());
    telemetry.circuitTransition(span, admission.transition);
    return admission;
  }

  /** The step after the attempt `call.attempt`, which ended in `outcome`. */
  async next(
    call: LogicalCall,
    outcome: AttemptOutcome,
    admission: CircuitAdmission | undefined,
  ): Promise<AttemptStep> {
    this.account(call.span, admission, outcome);
    const attempts = call.attempt;
    if (outcome.kind === 'success')
      return {
        action: 'end',
        end: { outcome: 'success', attempts, decision: undefined, failure: undefined },
      };
    if (outcome.kind === 'aborted')
      return {
        action: 'end',
        end: {
          outcome: 'aborted',
          attempts,
          decision: undefined,
          failure: undefined,
          error: outcome.error,
        },
      };
    if (outcome.kind === 'failure' && outcome.local && outcome.failure !== undefined) {
      // The breaker's own answer ends the logical call at once: waiting out the open
      // circuit would hold the caller (and, in a proxy, a request in flight) for openMs.
      const decision: RetryDecision = {
        action: 'stop',
        reason: 'circuit_open',
        outcome: 'failure',
        failure: summaryOfFailure(outcome.failure),
      };
      return { action: 'end', end: endOfStop(outcome, decision, attempts) };
    }
    const decides = outcome.kind === 'failure' || this.retriesThrown(outcome.error);
    const annotations = decides ? await this.annotationsFor(call, outcome) : undefined;
    const backoffMs = backoffDelay(
      attempts,
      this.parts.backoff,
      this.parts.random,
      call.previousBackoff,
    );
    const decision = decides
      ? this.holdForCircuit(
          this.decideOn(outcome, this.decideContext(call, annotations, backoffMs)),
          call,
        )
      : undefined;
    if (decision?.action !== 'retry')
      return { action: 'end', end: endOfStop(outcome, decision, attempts) };
    call.previousBackoff = backoffMs;
    return { action: 'retry', decision };
  }

  /**
   * Tells the retry budget and the tool's circuit how an attempt ended. Like gRPC, only
   * server-side trouble costs budget, not e.g. invalid params; an open circuit's own answer
   * (nothing was sent) and an abort cost nothing.
   */
  private account(
    span: Span,
    admission: CircuitAdmission | undefined,
    outcome: AttemptOutcome,
  ): void {
    if (outcome.kind === 'failure' && outcome.local) return;
    const circuit = circuitOutcomeOf(outcome);
    if (outcome.kind === 'success') this.parts.budget?.recordSuccess();
    else if (circuit === 'failure') this.parts.budget?.recordFailure();
    this.settle(span, admission, circuit);
  }

  /** Tells the breaker how an admitted attempt ended. */
  private settle(
    span: Span,
    admission: CircuitAdmission | undefined,
    outcome: CircuitOutcome,
  ): void {
    const { breaker, clock, telemetry } = this.parts;
    if (breaker === undefined || admission?.allowed !== true) return;
    telemetry.circuitTransition(span, breaker.record(admission.permit, outcome, clock.now()));
  }

  /** The decision on the class: a failure as `decide` reads it, a thrown error as classified. */
  private decideOn(
    outcome: AttemptOutcome & { kind: 'failure' | 'thrown' },
    ctx: DecideContext,
  ): RetryDecision {
    return outcome.kind === 'failure'
      ? decide(outcome.reading, ctx)
      : decideOn(outcome.summary, ctx, 'retryable_error');
  }

  /**
   * A retry that would reach the tool's circuit while it is open waits for the half-open time
   * instead, when that lies within the time budget; otherwise the call stops there.
   */
  private holdForCircuit(decision: RetryDecision, call: LogicalCall): RetryDecision {
    const { breaker, clock, limits } = this.parts;
    if (decision.action !== 'retry' || breaker === undefined) return decision;
    const now = clock.now();
    const until = breaker.openUntil(call.toolName, now);
    if (until === undefined || now + decision.delayMs >= until) return decision;
    const wait = Math.ceil(until - now);
    if (wait > limits.maxElapsedMs - Math.max(0, now - call.start))
      return {
        action: 'stop',
        reason: 'circuit_open',
        outcome: 'budget_exhausted',
        failure: decision.failure,
      };
    return { ...decision, delayMs: wait, delaySource: 'circuit_open' };
  }

  /** Whether `toolName` has a circuit at all (`circuitTools`; every tool by default). */
  private hasCircuit(toolName: string): boolean {
    const circuitTools = this.parts.policy.circuitTools;
    if (circuitTools === undefined) return true;
    try {
      return circuitTools(toolName) === true;
    } catch {
      return false;
    }
  }

  /** Whether thrown errors are retried at all (`retryOnThrow`); a throwing predicate says no. */
  private retriesThrown(error: unknown): boolean {
    const opt = this.parts.policy.retryOnThrow;
    if (typeof opt !== 'function') return opt === true;
    try {
      return opt(error) === true;
    } catch {
      return false;
    }
  }

  private decideContext(
    call: LogicalCall,
    annotations: ToolRetryAnnotations | undefined,
    backoffMs: number,
  ): DecideContext {
    const { budget, clock, limits } = this.parts;
    const now = clock.now();
    return {
      attempt: call.attempt,
      annotations,
      now,
      elapsedMs: Math.max(0, now - call.start),
      limits,
      backoffMs,
      retryBudgetAllows: budget === undefined ? true : budget.canRetry(),
    };
  }

  /** The tool's annotations, looked up only for a retryable reliability failure; never throws. */
  private async annotationsFor(
    call: LogicalCall,
    outcome: AttemptOutcome & { kind: 'failure' | 'thrown' },
  ): Promise<ToolRetryAnnotations | undefined> {
    const failure = outcome.kind === 'failure' ? outcome.failure : outcome.summary;
    if (failure?.class !== 'reliability' || failure.retryable !== true) return undefined;
    const { client, toolName } = call;
    try {
      const provider = this.parts.policy.getToolAnnotations;
      if (provider !== undefined) return hintsOf(await provider(toolName));
      // What was listed for this client (by the instrumentation, this engine or its owner), or one walk.
      return await context.with(call.ctx, () =>
        retryHintsOf(client, toolName, (cursor) => listPage(client, cursor)),
      );
    } catch {
      return undefined;
    }
  }
}

function listPage(client: RetryableClient, cursor: string | undefined): Promise<unknown> {
  if (typeof client.listTools !== 'function') return Promise.resolve({ tools: [] });
  return Reflect.apply(
    client.listTools as (...a: unknown[]) => Promise<unknown>,
    client,
    cursor === undefined ? [] : [{ cursor }],
  );
}
