import { context, trace, type Context } from '@opentelemetry/api';
import { AbortLink } from '@omcp/tool-failure/wire';
import { withAttempt } from '../shared/attempt-context.js';
import { withAttemptMeta } from '../shared/attempt-meta.js';
import {
  toolFailure,
  correlationIdFor,
  classifyError,
  TOOL_FAILURE_META_KEY,
  readToolFailure,
} from '@omcp/tool-failure';
import { summaryOfClassification } from '@omcp/tool-failure';
import type { ToolFailureReading } from '@omcp/tool-failure';
import { isExceptionSignal, isMetaKey, isRate } from '../shared/config.js';
import { rememberToolList } from '../shared/tool-annotations.js';
import {
  ABSENT,
  isErrorResult,
  resultOutcome,
  thrownOutcome,
  type AttemptOutcome,
} from './attempt-outcome.js';
import { resolveBackoff } from './backoff.js';
import { createCircuitBreaker, type CircuitAdmission, type CircuitBreaker } from './breaker.js';
import { createRetryBudget, guardedBudget } from './budget.js';
import { DEFAULT_RETRY_LIMITS } from './decide.js';
import { DecisionPath, type LogicalCall } from './decision-path.js';
import type { RetryableClient } from './types.js';

export type { RetryableClient } from './types.js';
import { sleep, systemClock } from './sleep.js';
import { markCircuitAnswer } from './circuit-answer.js';
import { RetryTelemetry, safeHook, type CallEnd } from './telemetry.js';
import type {
  CircuitState,
  FailureSummary,
  RetryClock,
  RetryDecision,
  RetryLimits,
  ToolCallReport,
  ToolRetryPolicy,
} from './types.js';
import { CONNECTION_CLOSED } from '@omcp/tool-failure/wire';

/** The wrapped client: the original client, with `callTool` following the retry rules. */
export type ToolRetryClient<C extends RetryableClient> = C & {
  /**
   * Like `callTool`, but resolves to the full report of the logical call: the last
   * result unchanged, the parsed failure, the decision, the outcome and the attempt count.
   */
  callToolWithRetry(
    ...args: Parameters<C['callTool']>
  ): Promise<ToolCallReport<Awaited<ReturnType<C['callTool']>>>>;
};

const REPORTS = new WeakMap<object, ToolCallReport<unknown>>();

/**
 * The report of the logical call that returned `result` through a wrapped `callTool`,
 * kept beside the result (never written into it), or `undefined` for any other object.
 */
export function toolCallReportOf<R extends object>(result: R): ToolCallReport<R> | undefined {
  return REPORTS.get(result) as ToolCallReport<R> | undefined;
}

/**
 * Wraps an MCP client so that `callTool` dispatches tool failures on their class:
 * capability and governance failures are returned at once, reliability failures are
 * retried only when `retryable` is true and the tool declares `idempotentHint: true`,
 * never before `retryNotBefore`, within `maxAttempts`, `maxElapsedMs` and a shared retry
 * budget. `callTool` still resolves to the last `CallToolResult`, unchanged (its report is
 * available through `toolCallReportOf(result)`); `callToolWithRetry` resolves to the report.
 * Errors thrown by `callTool` are rethrown, and only retried when `retryOnThrow` is set.
 * An abort (the `signal` of the call options) rejects with the signal's reason at once.
 *
 * The same as `createToolRetry(policy).wrap(client)`: an engine of its own for this client.
 * Wrap several clients with one `createToolRetry` to give them one budget.
 */
export function withToolRetry<C extends RetryableClient>(
  client: C,
  policy: ToolRetryPolicy = {},
): ToolRetryClient<C> {
  return createToolRetry(policy).wrap(client);
}

/**
 * A retry engine: the policy resolved once, with the state that must outlive a call (the retry
 * budget, the exception-log budget, the tracer and meter), shared by every client it wraps.
 * Create one for what the budget protects (a client, an upstream) and keep it.
 */
export interface ToolRetry {
  /**
   * The client, with `callTool` following the policy. The client keeps working as before:
   * the returned object is a proxy that forwards everything else to it; while a retry waits,
   * the client's transport `onclose` is chained once so the wait ends when the connection does.
   */
  wrap<C extends RetryableClient>(client: C): ToolRetryClient<C>;
  /** Tells the engine the tools of one `tools/list` page of `client` (annotations it may use). */
  rememberToolList(client: RetryableClient, page: unknown): void;
  /** The state of the tool's circuit now, or `undefined` when the policy has no circuit breaker. */
  circuitState(toolName: string): CircuitState | undefined;
}

/** Creates a retry engine for `policy` (bad limits or options throw a `RangeError` here). */
export function createToolRetry(policy: ToolRetryPolicy = {}): ToolRetry {
  const engine = new ToolRetryEngine(policy);
  return {
    wrap: (client) => wrapClient(engine, client),
    rememberToolList: (client, page) => rememberToolList(client, page),
    circuitState: (toolName) => engine.circuitState(toolName),
  };
}

function wrapClient<C extends RetryableClient>(
  engine: ToolRetryEngine,
  client: C,
): ToolRetryClient<C> {
  const overrides = new Map<PropertyKey, unknown>([
    ['callTool', (...args: unknown[]) => engine.run(client, args).then((report) => report.result)],
    ['callToolWithRetry', (...args: unknown[]) => engine.run(client, args)],
  ]);
  if (typeof client.listTools === 'function')
    overrides.set('listTools', (...args: unknown[]) => engine.listTools(client, args));
  const bound = new Map<PropertyKey, { original: unknown; bound: unknown }>();
  return new Proxy(client, {
    get(target, prop) {
      if (overrides.has(prop)) return overrides.get(prop);
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      // Bound to the real client, so methods touching private (#) fields keep working.
      const cached = bound.get(prop);
      if (cached?.original === value) return cached.bound;
      const fn = (value as (...a: unknown[]) => unknown).bind(target);
      bound.set(prop, { original: value, bound: fn });
      return fn;
    },
    has(target, prop) {
      return overrides.has(prop) || Reflect.has(target, prop);
    },
  }) as ToolRetryClient<C>;
}

/** The retry machinery of one engine, shared by the clients it wraps. */
class ToolRetryEngine {
  private readonly clock: RetryClock;
  private readonly telemetry: RetryTelemetry;
  private readonly metaKey: string;
  private readonly breaker: CircuitBreaker | undefined;
  private readonly path: DecisionPath;

  constructor(private readonly policy: ToolRetryPolicy) {
    const limits = resolveLimits(policy);
    this.metaKey = checkPolicyOptions(policy);
    const backoff = resolveBackoff(policy.backoff);
    const budget =
      policy.retryBudget === false
        ? undefined
        : policy.retryBudget === undefined
          ? createRetryBudget()
          : guardedBudget(policy.retryBudget);
    this.clock = policy.clock ?? systemClock;
    const random = policy.random ?? Math.random;
    this.telemetry = new RetryTelemetry(
      policy.tracerProvider,
      policy.meterProvider,
      policy.loggerProvider,
      policy.exceptionSignal,
      policy.maxFailureLogsPerSecond,
    );
    const breaker = policy.circuitBreaker;
    if (
      breaker !== undefined &&
      breaker !== false &&
      breaker !== true &&
      typeof breaker !== 'object'
    )
      throw new RangeError('circuitBreaker must be a boolean or an options object');
    this.breaker =
      breaker === undefined || breaker === false
        ? undefined
        : createCircuitBreaker(breaker === true ? undefined : breaker);
    const { clock, telemetry } = this;
    this.path = new DecisionPath({
      policy,
      limits,
      backoff,
      budget,
      breaker: this.breaker,
      clock,
      random,
      telemetry,
    });
    // The observer holds the engine weakly: a dropped engine takes its callback with it.
    if (this.breaker !== undefined)
      this.telemetry.observeCircuits(this, (owner) => (owner as ToolRetryEngine).circuitStates());
  }

  circuitState(toolName: string): CircuitState | undefined {
    return this.breaker?.state(toolName, this.clock.now());
  }

  circuitStates(): Array<[string, CircuitState]> {
    return this.breaker?.states(this.clock.now()) ?? [];
  }

  async listTools(client: RetryableClient, args: readonly unknown[]): Promise<unknown> {
    const page: unknown = await Reflect.apply(client.listTools as () => unknown, client, args);
    rememberToolList(client, page);
    return page;
  }

  /** Runs one logical call: every attempt, the waits between them, and the telemetry. */
  async run(client: RetryableClient, args: readonly unknown[]): Promise<ToolCallReport<unknown>> {
    const toolName = toolNameOf(args[0]);
    if (toolName === undefined) {
      // Not a call this policy understands: the client reports the problem as it does today.
      return passThroughReport(await callOnce(client, args), this.metaKey);
    }
    const signal = signalOf(args);
    const parent = context.active();
    const span = this.telemetry.startCall(toolName, parent);
    const ctx = trace.setSpan(parent, span);
    const call: LogicalCall = {
      client,
      toolName,
      span,
      ctx,
      start: this.clock.now(),
      attempt: 0,
      previousBackoff: undefined,
    };
    let outcome: AttemptOutcome | undefined;
    let waitingFor: RetryDecision | undefined;
    let end: CallEnd | undefined;
    try {
      for (;;) {
        call.attempt += 1;
        outcome = undefined;
        waitingFor = undefined;
        const admission = this.path.admit(span, toolName);
        // The SDK never removes the abort listener it adds to a request's signal: each attempt
        // gets a child of the caller's, let go of when the attempt ends, so that a signal the
        // caller passes to many calls does not keep every attempt's request alive.
        const link =
          admission?.allowed === false || signal === undefined
            ? undefined
            : new AbortLink([signal]);
        try {
          outcome = await this.attempt(call, args, admission, link?.signal, signal);
          // The attempt's request has ended, answered or thrown: an abort during the wait that
          // follows must not reach it (the SDK would send notifications/cancelled for it).
          link?.dispose();
          const step = await this.path.next(call, outcome, admission);
          if (step.action === 'end') {
            end = step.end;
            if (outcome.kind === 'thrown' || outcome.kind === 'aborted') throw outcome.error;
            return this.report(outcome.result, end, outcome.reading, call.start);
          }
          waitingFor = step.decision;
          const error = outcome.kind === 'thrown' ? outcome.error : undefined;
          await this.wait(call, step.decision, signal, error);
        } finally {
          link?.dispose();
        }
      }
    } catch (error) {
      end ??= {
        outcome: signal?.aborted === true ? 'aborted' : 'error',
        attempts: call.attempt,
        decision: waitingFor,
        failure: waitingFor?.failure,
        error,
      };
      throw error;
    } finally {
      if (end !== undefined) this.endCall(call, end, outcome);
    }
  }

  /**
   * Sends attempt `call.attempt` (or, with the circuit open, answers in its place) and tells how
   * it ended. `attemptSignal` is the attempt's child of the caller's `signal`.
   */
  private async attempt(
    call: LogicalCall,
    args: readonly unknown[],
    admission: CircuitAdmission | undefined,
    attemptSignal: AbortSignal | undefined,
    signal: AbortSignal | undefined,
  ): Promise<AttemptOutcome> {
    try {
      // An open circuit: the call is not sent, the caller gets the breaker's own failure.
      if (admission?.allowed === false)
        return resultOutcome(
          this.circuitOpenResult(call.toolName, admission, call.ctx),
          this.metaKey,
          true,
        );
      const result = await context.with(withAttempt(call.ctx, call.attempt), () =>
        callOnce(call.client, argsOfAttempt(args, call.attempt, attemptSignal)),
      );
      return resultOutcome(result, this.metaKey, false);
    } catch (error) {
      return thrownOutcome(error, signal?.aborted === true, (e) => this.summarizeThrown(e));
    }
  }

  /** The end of the logical call: the circuit's state and the outcome on the span, `onGiveUp`. */
  private endCall(call: LogicalCall, end: CallEnd, last: AttemptOutcome | undefined): void {
    const { span, toolName } = call;
    if (this.breaker !== undefined)
      this.telemetry.circuitState(span, this.breaker.state(toolName, this.clock.now()));
    this.telemetry.endCall(span, toolName, end);
    if (end.outcome === 'success') return;
    const failure = last?.kind === 'failure' ? last.failure : undefined;
    safeHook(this.policy.onGiveUp, {
      toolName,
      attempts: end.attempts,
      outcome: end.outcome,
      ...(end.decision === undefined ? {} : { decision: end.decision }),
      ...(failure === undefined ? {} : { failure }),
      ...('error' in end ? { error: end.error } : {}),
    });
  }

  private async wait(
    call: LogicalCall,
    decision: RetryDecision & { action: 'retry' },
    signal: AbortSignal | undefined,
    error?: unknown,
  ): Promise<void> {
    const { client, span, toolName, attempt } = call;
    this.telemetry.retryScheduled(span, attempt, decision);
    safeHook(this.policy.onRetry, {
      toolName,
      attempt,
      delayMs: decision.delayMs,
      reason: decision.reason,
      delaySource: decision.delaySource,
      failure: decision.failure,
      ...(error === undefined ? {} : { error }),
    });
    // The wait also ends when the client's connection closes: no attempt could follow. The
    // link lets go of that long-lived signal when the wait ends.
    const until = new AbortLink([signal, closedSignal(client)]);
    try {
      const waitEnds = this.clock.now() + decision.delayMs;
      await sleep(decision.delayMs, until.signal, this.clock);
      // A timer may fire a little early against the wall clock; the next attempt never does
      // (nor, when the wait is for an open circuit, does it reach the circuit before it half-opens).
      const notBefore =
        decision.delaySource === 'circuit_open' ? waitEnds : decision.failure.retryNotBefore;
      while (notBefore !== undefined && this.clock.now() < notBefore) {
        await sleep(notBefore - this.clock.now(), until.signal, this.clock);
      }
    } finally {
      until.dispose();
    }
  }

  /**
   * The answer of an open circuit, built like any failure of this package: `reliability` /
   * `circuit_open`, retryable (the call was never sent), not before the half-open time, with
   * the trace ID of the call's span as `correlationId`.
   */
  private circuitOpenResult(
    toolName: string,
    admission: CircuitAdmission & { allowed: false },
    callCtx: Context,
  ): unknown {
    const retryNotBefore = Math.ceil(admission.retryAt);
    const result = toolFailure(
      {
        class: 'reliability',
        code: 'circuit_open',
        retryable: true,
        retryNotBefore,
        correlationId: correlationIdFor(callCtx),
        message: `Circuit ${admission.state === 'open' ? 'open' : 'half-open'} for tool "${toolName}" after repeated reliability failures; the call was not sent. Try again after ${new Date(retryNotBefore).toISOString()}.`,
        agentGuidance:
          'The tool is failing repeatedly; wait until retryNotBefore before calling it again.',
      },
      { metaKey: this.metaKey },
    );
    return markCircuitAnswer(result);
  }

  /** A thrown error as a failure summary, by the package's one error classifier. */
  private summarizeThrown(error: unknown): FailureSummary {
    const classification = classifyError(error, {
      ...(this.policy.classifier === undefined ? {} : { classifier: this.policy.classifier }),
      now: () => this.clock.now(),
    });
    return summaryOfClassification(classification);
  }

  private report(
    result: unknown,
    end: CallEnd,
    reading: ToolFailureReading,
    start: number,
  ): ToolCallReport<unknown> {
    const report: ToolCallReport<unknown> = Object.freeze({
      result,
      outcome: end.outcome as ToolCallReport<unknown>['outcome'],
      attempts: end.attempts,
      reading,
      failure: reading.status === 'valid' ? reading.failure : undefined,
      decision: end.decision,
      elapsedMs: Math.max(0, this.clock.now() - start),
    });
    if (typeof result === 'object' && result !== null) REPORTS.set(result, report);
    return report;
  }
}

/**
 * A signal aborted when the client's transport closes (SDK clients expose `transport`),
 * or `undefined` for a client without one. The transport's `onclose` is chained once.
 */
function closedSignal(client: RetryableClient): AbortSignal | undefined {
  if (!('transport' in client)) return undefined;
  const transport: unknown = (client as { transport?: unknown }).transport;
  if (typeof transport !== 'object' || transport === null) {
    const controller = new AbortController();
    controller.abort(connectionClosed());
    return controller.signal;
  }
  let controller = CLOSE_WATCH.get(transport);
  if (controller === undefined) {
    const watch = new AbortController();
    const target = transport as { onclose?: unknown };
    const previous = target.onclose;
    target.onclose = function (this: unknown, ...args: unknown[]): unknown {
      try {
        return typeof previous === 'function' ? Reflect.apply(previous, this, args) : undefined;
      } finally {
        watch.abort(connectionClosed());
      }
    };
    CLOSE_WATCH.set(transport, watch);
    controller = watch;
  }
  return controller.signal;
}

/**
 * The call arguments of attempt `attempt`: from the second on, the params name the attempt; with
 * `signal`, the request options are a copy holding it in place of the caller's signal.
 */
function argsOfAttempt(
  args: readonly unknown[],
  attempt: number,
  signal: AbortSignal | undefined,
): readonly unknown[] {
  const out = attempt < 2 ? [...args] : [withAttemptMeta(args[0], attempt), ...args.slice(1)];
  const at = signal === undefined ? -1 : optionsIndexOf(args);
  if (at > 0) out[at] = { ...(args[at] as object), signal };
  return out;
}

function callOnce(client: RetryableClient, args: readonly unknown[]): Promise<unknown> {
  return Reflect.apply(client.callTool as (...a: unknown[]) => Promise<unknown>, client, [...args]);
}

/** Per transport: aborted when it closes (shared by every wrapper of clients on it). */
const CLOSE_WATCH = new WeakMap<object, AbortController>();

/** What a retry wait rejects with when the connection closed (the SDK's ConnectionClosed code). */
function connectionClosed(): Error {
  return Object.assign(new Error('Connection closed during a retry wait'), {
    code: CONNECTION_CLOSED,
  });
}

function passThroughReport(result: unknown, metaKey: string): ToolCallReport<unknown> {
  const reading = isErrorResult(result) ? readToolFailure(result, { metaKey }) : ABSENT;
  return Object.freeze({
    result,
    outcome: isErrorResult(result) ? 'failure' : 'success',
    attempts: 1,
    reading,
    failure: reading.status === 'valid' ? reading.failure : undefined,
    decision: undefined,
    elapsedMs: 0,
  });
}

function resolveLimits(policy: ToolRetryPolicy): RetryLimits {
  const maxAttempts = policy.maxAttempts ?? DEFAULT_RETRY_LIMITS.maxAttempts;
  const maxElapsedMs = policy.maxElapsedMs ?? DEFAULT_RETRY_LIMITS.maxElapsedMs;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1))
    throw new RangeError('maxAttempts must be an integer >= 1');
  if (!(Number.isFinite(maxElapsedMs) && maxElapsedMs >= 0))
    throw new RangeError('maxElapsedMs must be a finite number >= 0');
  return { maxAttempts, maxElapsedMs };
}

/**
 * The options the instrumentation also has, by the same rules (src/shared/config.ts), checked
 * like the limits: a bad value is an error at construction. Returns the `_meta` key to read.
 */
function checkPolicyOptions(policy: ToolRetryPolicy): string {
  const { maxFailureLogsPerSecond: rate, exceptionSignal: signal, metaKey } = policy;
  if (rate !== undefined && !isRate(rate))
    throw new RangeError('maxFailureLogsPerSecond must be a number >= 0 (Infinity for no limit)');
  if (signal !== undefined && !isExceptionSignal(signal))
    throw new RangeError("exceptionSignal must be 'logs' or 'logs/dup'");
  if (metaKey !== undefined && !isMetaKey(metaKey))
    throw new RangeError('metaKey must be a non-empty string');
  return metaKey ?? TOOL_FAILURE_META_KEY;
}

function toolNameOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const name: unknown = (params as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** The `signal` of whichever argument carries request options (2nd in SDK 2.x, 3rd in 1.x). */
function signalOf(args: readonly unknown[]): AbortSignal | undefined {
  const at = optionsIndexOf(args);
  return at < 0 ? undefined : (args[at] as { signal: AbortSignal }).signal;
}

/** The index of the first argument after the params holding an `AbortSignal`, or -1. */
function optionsIndexOf(args: readonly unknown[]): number {
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg !== 'object' || arg === null) continue;
    const signal: unknown = (arg as { signal?: unknown }).signal;
    if (
      typeof signal === 'object' &&
      signal !== null &&
      typeof (signal as AbortSignal).aborted === 'boolean' &&
      typeof (signal as AbortSignal).addEventListener === 'function'
    )
      return i;
  }
  return -1;
}
