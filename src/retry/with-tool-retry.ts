import { context, trace, type Context, type Span } from '@opentelemetry/api';
import { AbortLink } from '../shared/abort-link.js';
import { withAttempt } from '../shared/attempt-context.js';
import { withAttemptMeta } from '../shared/attempt-meta.js';
import { toolFailure } from '../tool-failure/build.js';
import { correlationIdFor } from '../tool-failure/correlation.js';
import { classifyError } from '../tool-failure/classify.js';
import { summaryOfClassification, summaryOfFailure } from '../tool-failure/convert.js';
import { TOOL_FAILURE_META_KEY } from '../tool-failure/constants.js';
import { readToolFailure } from '../tool-failure/read.js';
import type { ToolFailure, ToolFailureReading } from '../tool-failure/types.js';
import { isExceptionSignal, isMetaKey, isRate } from '../shared/config.js';
import { hintsOf, rememberToolList, retryHintsOf } from '../shared/tool-annotations.js';
import { backoffDelay, resolveBackoff } from './backoff.js';
import { createCircuitBreaker, type CircuitAdmission, type CircuitBreaker } from './breaker.js';
import { createRetryBudget, guardedBudget } from './budget.js';
import { DEFAULT_RETRY_LIMITS, decide, decideOn } from './decide.js';
import { sleep, systemClock } from './sleep.js';
import { RetryTelemetry, safeHook, type CallEnd } from './telemetry.js';
import type {
  BackoffOptions,
  CircuitOutcome,
  CircuitState,
  DecideContext,
  FailureSummary,
  RetryBudget,
  RetryClock,
  RetryDecision,
  RetryLimits,
  ToolCallReport,
  ToolRetryAnnotations,
  ToolRetryPolicy,
} from './types.js';
import { CONNECTION_CLOSED } from '../shared/jsonrpc.js';

/**
 * The client shape `withToolRetry` wraps. `Client` of `@modelcontextprotocol/sdk` 1.x
 * (`callTool(params, resultSchema?, options?)`) and of `@modelcontextprotocol/client` 2.x
 * (`callTool(params, options?)`) both fit; the arguments are passed through unchanged.
 */
export interface RetryableClient {
  callTool(params: { name: string }, ...rest: never[]): Promise<unknown>;
  listTools?(params?: { cursor?: string }, ...rest: never[]): Promise<unknown>;
}

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

/** The results an open circuit answered with (never sent to the server). */
const CIRCUIT_ANSWERS = new WeakSet<object>();

/** Whether `result` is an open circuit's own answer, not a server's (for the proxy). */
export function isCircuitOpenAnswer(result: unknown): boolean {
  return typeof result === 'object' && result !== null && CIRCUIT_ANSWERS.has(result);
}

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
  private readonly limits: RetryLimits;
  private readonly backoff: BackoffOptions;
  private readonly budget: RetryBudget | undefined;
  private readonly clock: RetryClock;
  private readonly random: () => number;
  private readonly telemetry: RetryTelemetry;
  private readonly metaKey: string;
  private readonly breaker: CircuitBreaker | undefined;

  constructor(private readonly policy: ToolRetryPolicy) {
    this.limits = resolveLimits(policy);
    this.metaKey = checkPolicyOptions(policy);
    this.backoff = resolveBackoff(policy.backoff);
    this.budget =
      policy.retryBudget === false
        ? undefined
        : policy.retryBudget === undefined
          ? createRetryBudget()
          : guardedBudget(policy.retryBudget);
    this.clock = policy.clock ?? systemClock;
    this.random = policy.random ?? Math.random;
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
    const callCtx = trace.setSpan(parent, span);
    const start = this.clock.now();
    let attempt = 0;
    let previousBackoff: number | undefined;
    let decision: RetryDecision | undefined;
    let failure: ToolFailure | undefined;
    let end: CallEnd | undefined;
    try {
      for (;;) {
        attempt += 1;
        decision = undefined;
        failure = undefined;
        let result: unknown;
        const admission = this.admit(span, toolName);
        // An open circuit: the call is not sent, the caller gets the breaker's own failure.
        const local = admission?.allowed === false;
        // The SDK never removes the abort listener it adds to a request's signal: each attempt
        // gets a child of the caller's, let go of when the attempt ends, so that a signal the
        // caller passes to many calls does not keep every attempt's request alive.
        const attemptSignal = local || signal === undefined ? undefined : new AbortLink([signal]);
        try {
          result =
            admission?.allowed === false
              ? this.circuitOpenResult(toolName, admission, callCtx)
              : await context.with(withAttempt(callCtx, attempt), () =>
                  callOnce(client, argsOfAttempt(args, attempt, attemptSignal?.signal)),
                );
        } catch (error) {
          if (signal?.aborted === true) {
            this.settle(span, admission, 'ignored');
            throw error;
          }
          const thrown = this.summarizeThrown(error);
          // Like gRPC, only server-side trouble costs budget, not e.g. invalid params.
          if (thrown.class === 'reliability') this.budget?.recordFailure();
          this.settle(span, admission, thrown.class === 'reliability' ? 'failure' : 'success');
          const backoffMs = backoffDelay(attempt, this.backoff, this.random, previousBackoff);
          decision = this.retriesThrown(error)
            ? this.holdForCircuit(
                await this.decideThrown(
                  client,
                  thrown,
                  toolName,
                  callCtx,
                  attempt,
                  start,
                  backoffMs,
                ),
                toolName,
                start,
              )
            : undefined;
          if (decision?.action !== 'retry') {
            const outcome =
              decision?.action === 'stop' && decision.outcome !== 'failure'
                ? decision.outcome
                : 'error';
            end = { outcome, attempts: attempt, decision, failure: decision?.failure, error };
            throw error;
          }
          previousBackoff = backoffMs;
          await this.wait(client, span, toolName, attempt, decision, signal, error);
          continue;
        } finally {
          attemptSignal?.dispose();
        }

        if (!isErrorResult(result)) {
          this.budget?.recordSuccess();
          this.settle(span, admission, 'success');
          end = { outcome: 'success', attempts: attempt, decision: undefined, failure: undefined };
          return this.report(result, end, ABSENT, start);
        }
        const reading = readToolFailure(result, { metaKey: this.metaKey });
        failure = reading.status === 'valid' ? reading.failure : undefined;
        if (!local) {
          if (failure?.class === 'reliability') this.budget?.recordFailure();
          this.settle(span, admission, failure?.class === 'reliability' ? 'failure' : 'success');
        }
        if (local && failure !== undefined) {
          // The breaker's own answer ends the logical call at once: waiting out the open
          // circuit would hold the caller (and, in a proxy, a request in flight) for openMs.
          decision = {
            action: 'stop',
            reason: 'circuit_open',
            outcome: 'failure',
            failure: summaryOfFailure(failure),
          };
          end = { outcome: 'failure', attempts: attempt, decision, failure: decision.failure };
          return this.report(result, end, reading, start);
        }
        const annotations =
          failure?.class === 'reliability' && failure.retryable === true
            ? await this.annotationsFor(client, toolName, callCtx)
            : undefined;
        const backoffMs = backoffDelay(attempt, this.backoff, this.random, previousBackoff);
        decision = this.holdForCircuit(
          decide(reading, this.decideContext(attempt, start, annotations, backoffMs)),
          toolName,
          start,
        );
        if (decision.action !== 'retry') {
          end = {
            outcome: decision.action === 'stop' ? decision.outcome : 'failure',
            attempts: attempt,
            decision,
            failure: decision.failure,
          };
          return this.report(result, end, reading, start);
        }
        previousBackoff = backoffMs;
        await this.wait(client, span, toolName, attempt, decision, signal);
      }
    } catch (error) {
      end ??= {
        outcome: signal?.aborted === true ? 'aborted' : 'error',
        attempts: attempt,
        decision,
        failure: decision?.failure,
        error,
      };
      throw error;
    } finally {
      if (end !== undefined) {
        if (this.breaker !== undefined)
          this.telemetry.circuitState(span, this.breaker.state(toolName, this.clock.now()));
        this.telemetry.endCall(span, toolName, end);
        if (end.outcome !== 'success') {
          safeHook(this.policy.onGiveUp, {
            toolName,
            attempts: end.attempts,
            outcome: end.outcome,
            ...(end.decision === undefined ? {} : { decision: end.decision }),
            ...(failure === undefined ? {} : { failure }),
            ...('error' in end ? { error: end.error } : {}),
          });
        }
      }
    }
  }

  private async wait(
    client: RetryableClient,
    span: Span,
    toolName: string,
    attempt: number,
    decision: RetryDecision & { action: 'retry' },
    signal: AbortSignal | undefined,
    error?: unknown,
  ): Promise<void> {
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

  /** Asks the breaker whether the next attempt may go out; records a transition on the span. */
  private admit(span: Span, toolName: string): CircuitAdmission | undefined {
    if (this.breaker === undefined || !this.hasCircuit(toolName)) return undefined;
    const admission = this.breaker.admit(toolName, this.clock.now());
    this.telemetry.circuitTransition(span, admission.transition);
    return admission;
  }

  /** Whether `toolName` has a circuit at all (`circuitTools`; every tool by default). */
  private hasCircuit(toolName: string): boolean {
    const circuitTools = this.policy.circuitTools;
    if (circuitTools === undefined) return true;
    try {
      return circuitTools(toolName) === true;
    } catch {
      return false;
    }
  }

  /** Tells the breaker how an admitted attempt ended. */
  private settle(
    span: Span,
    admission: CircuitAdmission | undefined,
    outcome: CircuitOutcome,
  ): void {
    if (this.breaker === undefined || admission?.allowed !== true) return;
    const transition = this.breaker.record(admission.permit, outcome, this.clock.now());
    this.telemetry.circuitTransition(span, transition);
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
    CIRCUIT_ANSWERS.add(result);
    return result;
  }

  /**
   * A retry that would reach the tool's circuit while it is open waits for the half-open time
   * instead, when that lies within the time budget; otherwise the call stops there.
   */
  private holdForCircuit(decision: RetryDecision, toolName: string, start: number): RetryDecision {
    if (decision.action !== 'retry' || this.breaker === undefined) return decision;
    const now = this.clock.now();
    const until = this.breaker.openUntil(toolName, now);
    if (until === undefined || now + decision.delayMs >= until) return decision;
    const wait = Math.ceil(until - now);
    if (wait > this.limits.maxElapsedMs - Math.max(0, now - start))
      return {
        action: 'stop',
        reason: 'circuit_open',
        outcome: 'budget_exhausted',
        failure: decision.failure,
      };
    return { ...decision, delayMs: wait, delaySource: 'circuit_open' };
  }

  private retriesThrown(error: unknown): boolean {
    const opt = this.policy.retryOnThrow;
    if (typeof opt !== 'function') return opt === true;
    try {
      return opt(error) === true;
    } catch {
      return false;
    }
  }

  /** A thrown error as a failure summary, by the package's one error classifier. */
  private summarizeThrown(error: unknown): FailureSummary {
    const classification = classifyError(error, {
      ...(this.policy.classifier === undefined ? {} : { classifier: this.policy.classifier }),
      now: () => this.clock.now(),
    });
    return summaryOfClassification(classification);
  }

  private async decideThrown(
    client: RetryableClient,
    summary: FailureSummary,
    toolName: string,
    callCtx: Context,
    attempt: number,
    start: number,
    backoffMs: number,
  ): Promise<RetryDecision> {
    const annotations =
      summary.class === 'reliability' && summary.retryable === true
        ? await this.annotationsFor(client, toolName, callCtx)
        : undefined;
    return decideOn(
      summary,
      this.decideContext(attempt, start, annotations, backoffMs),
      'retryable_error',
    );
  }

  private decideContext(
    attempt: number,
    start: number,
    annotations: ToolRetryAnnotations | undefined,
    backoffMs: number,
  ): DecideContext {
    const now = this.clock.now();
    return {
      attempt,
      annotations,
      now,
      elapsedMs: Math.max(0, now - start),
      limits: this.limits,
      backoffMs,
      retryBudgetAllows: this.budget === undefined ? true : this.budget.canRetry(),
    };
  }

  private async annotationsFor(
    client: RetryableClient,
    toolName: string,
    callCtx: Context,
  ): Promise<ToolRetryAnnotations | undefined> {
    try {
      const provider = this.policy.getToolAnnotations;
      if (provider !== undefined) return hintsOf(await provider(toolName));
      // What was listed for this client (by the instrumentation, this engine or its owner), or one walk.
      return await context.with(callCtx, () =>
        retryHintsOf(client, toolName, (cursor) => listPage(client, cursor)),
      );
    } catch {
      return undefined;
    }
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

function listPage(client: RetryableClient, cursor: string | undefined): Promise<unknown> {
  if (typeof client.listTools !== 'function') return Promise.resolve({ tools: [] });
  return Reflect.apply(
    client.listTools as (...a: unknown[]) => Promise<unknown>,
    client,
    cursor === undefined ? [] : [{ cursor }],
  );
}

/** Per transport: aborted when it closes (shared by every wrapper of clients on it). */
const CLOSE_WATCH = new WeakMap<object, AbortController>();

/** What a retry wait rejects with when the connection closed (the SDK's ConnectionClosed code). */
function connectionClosed(): Error {
  return Object.assign(new Error('Connection closed during a retry wait'), {
    code: CONNECTION_CLOSED,
  });
}

const ABSENT: ToolFailureReading = Object.freeze({ status: 'absent', problems: [] });

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
 * The options the instrumentation also has, by the same rules (config.ts), checked like the
 * limits: a bad value is an error at construction. Returns the `_meta` key to read.
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

function isErrorResult(result: unknown): boolean {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  );
}
