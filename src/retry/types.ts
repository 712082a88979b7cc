import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { LoggerProviderLike } from '../shared/logs.js';
import type { RetryHints } from '../shared/tool-annotations.js';
import type { TOOL_CALL_OUTCOMES } from '../semconv.js';
import type {
  ErrorClassifier,
  ToolFailure,
  ToolFailureReading,
  FailureSummary,
} from '@omcp/tool-failure';

/** The final outcome of a logical tool call (the values of `mcp.tool.call.outcome`). */
export type ToolCallOutcome = (typeof TOOL_CALL_OUTCOMES)[number];

/** Time and timers. Inject a fake one in tests; `now()` is epoch milliseconds. */
export interface RetryClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** How a backoff delay is randomised. */
export type JitterStrategy = 'none' | 'full' | 'equal' | 'decorrelated';

/** Capped exponential backoff. */
export interface BackoffOptions {
  /** Delay after the first failed attempt, before jitter. @default 250 */
  initialDelayMs: number;
  /** Upper bound of any backoff delay. @default 10_000 */
  maxDelayMs: number;
  /** Growth factor per attempt. @default 2 */
  multiplier: number;
  /** @default 'full' */
  jitter: JitterStrategy;
}

/** The part of MCP `ToolAnnotations` the policy reads (one definition: shared/tool-annotations). */
export type ToolRetryAnnotations = RetryHints;

/** Limits of one logical call. */
export interface RetryLimits {
  /** Attempts in total, the first one included. @default 3 */
  maxAttempts: number;
  /** Time budget of the logical call in milliseconds, counted from its start. @default 30_000 */
  maxElapsedMs: number;
}

/** Everything `decide()` looks at besides the failure. Plain data: `decide` does no I/O. */
export interface DecideContext {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  /** The tool's annotations; `undefined` when unknown, which counts as not idempotent. */
  annotations: ToolRetryAnnotations | undefined;
  /** Epoch milliseconds, compared with `retryNotBefore`. */
  now: number;
  /** Milliseconds since the logical call started. */
  elapsedMs: number;
  limits: RetryLimits;
  /** The delay the schedule proposes before the next attempt (see `backoffDelay`). @default 0 */
  backoffMs?: number;
  /** Whether the shared retry budget allows one more retry now. @default true */
  retryBudgetAllows?: boolean;
}

/** Why a failed call is not retried (further). */
export type StopReason =
  /** `isError: true` without a tool-failure object: an opaque error, as before the extension. */
  | 'not_classified'
  /** The tool-failure object breaks the proposal; a malformed failure is never retried. */
  | 'malformed'
  /** A reliability failure without `retryable: true`. */
  | 'not_retryable'
  /** The tool does not declare `idempotentHint: true` (or its annotations are unknown). */
  | 'not_idempotent'
  | 'attempts_exhausted'
  | 'time_budget_exhausted'
  /** `retryNotBefore` lies beyond the time budget: the call ends at once. */
  | 'retry_not_before_beyond_budget'
  /** The shared retry budget (throttle) refuses more retries. */
  | 'retry_budget_exhausted'
  /** The tool's circuit is open and does not half-open within the time budget. */
  | 'circuit_open';

/** Why a retry was scheduled. */
export type RetryReason = 'retryable_failure' | 'retryable_error';

/** What set the delay of a retry (the values of `mcp.tool.call.retry.delay_source`). */
export type RetryDelaySource = 'backoff' | 'retry_not_before' | 'circuit_open';

/** The state of one circuit (the values of `mcp.tool.call.circuit.state`). */
export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * What one attempt tells the breaker: `failure` for a reliability failure or a thrown error
 * classified reliability (transport errors, timeouts), `success` for any other answer of the
 * server (capability and governance failures included: the server works), `ignored` for an
 * attempt the caller aborted.
 */
export type CircuitOutcome = 'success' | 'failure' | 'ignored';

/** A change of a circuit's state. */
export interface CircuitTransition {
  /** The circuit's key: the tool name. */
  key: string;
  from: CircuitState;
  to: CircuitState;
}

/** Thresholds of the circuit breaker (one circuit per tool of the engine). */
export interface CircuitBreakerOptions {
  /** Consecutive failures (see `CircuitOutcome`) that open a closed circuit. @default 5 */
  failureThreshold?: number;
  /** How long an open circuit refuses calls before it half-opens, in milliseconds. @default 10_000 */
  openMs?: number;
  /** Calls let through at a time while half-open (probes). @default 1 */
  halfOpenProbes?: number;
  /** Circuits kept at most (closed ones are dropped first), against unbounded tool names. @default 1000 */
  maxCircuits?: number;
}

/** The dispatch for one received failure. */
export type RetryDecision =
  | {
      action: 'retry';
      /** Wait this long before the next attempt; never earlier than `retryNotBefore`. */
      delayMs: number;
      reason: RetryReason;
      /**
       * `retry_not_before` when the server's hint, not the backoff, set the delay;
       * `circuit_open` when the wait for the tool's open circuit to half-open did.
       */
      delaySource: RetryDelaySource;
      failure: FailureSummary;
    }
  | {
      /** capability: stop and hand the failure to the user or agent for a different approach. */
      action: 'surface';
      reason: 'capability';
      failure: FailureSummary;
      agentGuidance?: string;
    }
  | {
      /** governance: stop; a human must act out of band (approve, sign in, change policy). */
      action: 'out_of_band';
      reason: 'governance';
      failure: FailureSummary;
      agentGuidance?: string;
    }
  | {
      action: 'stop';
      reason: StopReason;
      /** The call outcome this stop leads to. */
      outcome: 'failure' | 'retries_exhausted' | 'budget_exhausted';
      failure?: FailureSummary;
    };

/** A shared retry budget across calls, so a failing server cannot cause a retry storm. */
export interface RetryBudget {
  /** Whether one more retry may be issued now. */
  canRetry(): boolean;
  /** Records an attempt that failed for a server-side reason (class reliability, also for thrown errors). */
  recordFailure(): void;
  /** Records an attempt that succeeded. */
  recordSuccess(): void;
}

/** Options of `createRetryBudget`, after gRPC's retry throttling. */
export interface RetryBudgetOptions {
  /** Bucket size; retries are allowed only while the tokens exceed half of it. @default 10 */
  maxTokens?: number;
  /** Tokens refunded by each success; each failure costs 1. @default 0.1 */
  tokenRatio?: number;
}

/** Passed to `onRetry` when a retry is scheduled. Frozen. */
export interface RetryEventInfo {
  toolName: string;
  /** The attempt that failed. */
  attempt: number;
  delayMs: number;
  reason: RetryReason;
  delaySource: RetryDelaySource;
  failure: FailureSummary;
  /** The thrown error, when `retryOnThrow` retried one. */
  error?: unknown;
}

/** Passed to `onGiveUp` when a logical call ends without success. Frozen. */
export interface GiveUpInfo {
  toolName: string;
  attempts: number;
  outcome: Exclude<ToolCallOutcome, 'success'>;
  /** The last decision, if one was taken (not for aborts). */
  decision?: RetryDecision;
  /** The last failure object read, if valid. */
  failure?: ToolFailure;
  /** The error the call rejects with, for `error` and `aborted`. */
  error?: unknown;
}

/** Where the tool annotations come from. May be async; a throw counts as unknown. */
export type ToolAnnotationsProvider = (
  toolName: string,
) => ToolRetryAnnotations | undefined | Promise<ToolRetryAnnotations | undefined>;

/** Configuration of `withToolRetry`. All options are optional. */
export interface ToolRetryPolicy {
  /** Attempts in total, the first one included. @default 3 */
  maxAttempts?: number;
  /**
   * The `_meta` key of the failure object, when the servers use another key than the
   * proposal's (the instrumentation's `metaKey` option). @default TOOL_FAILURE_META_KEY
   */
  metaKey?: string;
  /** Time budget of a logical call in milliseconds. @default 30_000 */
  maxElapsedMs?: number;
  /** Backoff schedule. @default { initialDelayMs: 250, maxDelayMs: 10_000, multiplier: 2, jitter: 'full' } */
  backoff?: Partial<BackoffOptions>;
  /**
   * Shared retry budget. Pass one instance to several wrapped clients to share it; `false`
   * turns throttling off. @default a per-wrapper `createRetryBudget()`
   */
  retryBudget?: RetryBudget | false;
  /**
   * Tool annotations by name. @default annotations seen through the wrapper's `listTools`,
   * else one `tools/list` walk (all pages) the first time a retryable failure needs them
   */
  getToolAnnotations?: ToolAnnotationsProvider;
  /**
   * Also retry errors thrown by `callTool` (JSON-RPC errors, timeouts, transport errors),
   * classified with `classifyError` and held to the same rules (reliability, retryable,
   * idempotent). They are not tool failures, so this is off by default. @default false
   */
  retryOnThrow?: boolean | ((error: unknown) => boolean);
  /** Classifier for thrown errors when `retryOnThrow` is on. */
  classifier?: ErrorClassifier;
  /**
   * A circuit breaker per tool, living as long as the engine: after `failureThreshold`
   * consecutive reliability failures or thrown errors classified reliability (never capability
   * or governance ones), calls of that tool are not sent for `openMs`; each gets at once an
   * `isError` result with a `reliability` / `circuit_open` failure object (`retryable: true`,
   * `retryNotBefore` at the half-open time, `correlationId` the trace ID of the call's span).
   * Then `halfOpenProbes` probe calls go through: a success closes it, a failure reopens it.
   * The engine's own retries wait for the half-open time (within `maxElapsedMs`) or stop.
   * `true` uses the defaults. @default false
   */
  circuitBreaker?: boolean | CircuitBreakerOptions;
  /**
   * Which tools have a circuit (with `circuitBreaker`): a call of a tool this refuses is never
   * held back by a circuit and never counted in one, so names the server never listed open no
   * circuit and evict none. A throwing predicate counts as a refusal. @default every tool
   */
  circuitTools?: (toolName: string) => boolean;
  /** Called for every scheduled retry; a throwing hook is ignored. */
  onRetry?: (info: RetryEventInfo) => void;
  /** Called when a logical call ends without success; a throwing hook is ignored. */
  onGiveUp?: (info: GiveUpInfo) => void;
  /** @default the system clock (`Date.now`, global timers) */
  clock?: RetryClock;
  /** Uniform random numbers in [0, 1) for jitter. @default Math.random */
  random?: () => number;
  /** @default the global tracer provider */
  tracerProvider?: TracerProvider;
  /** @default the global meter provider */
  meterProvider?: MeterProvider;
  /**
   * Where the exception of a logical call that ends in a thrown error is recorded (a log record
   * in the call span's context, severity WARN, `exception.*` attributes).
   * @default the global logger provider
   */
  loggerProvider?: LoggerProviderLike;
  /**
   * `logs/dup` also records that exception as an `exception` span event (for trace-only
   * backends). @default from `OTEL_SEMCONV_EXCEPTION_SIGNAL_OPT_IN`, else `'logs'`
   */
  exceptionSignal?: 'logs' | 'logs/dup';
  /**
   * How many of those log records per second, per tool and exception type. Beyond it (a storm of
   * calls ending in the same thrown error) the record is left out; the call's span still has the
   * outcome and error type, and the next record of the same tool and type carries
   * `mcp.tool.failure.suppressed_records`. `Infinity` records every one. @default 10
   */
  maxFailureLogsPerSecond?: number;
}

/** What one logical call through `callToolWithRetry` produced. */
export interface ToolCallReport<R> {
  /** The last `CallToolResult`, unchanged. */
  result: R;
  outcome: Exclude<ToolCallOutcome, 'aborted' | 'error'>;
  attempts: number;
  /** `readToolFailure(result)` of the last result (`absent` on success). */
  reading: ToolFailureReading;
  /** The last failure object, when valid. */
  failure: ToolFailure | undefined;
  /** The decision taken on the last result; `undefined` on success. */
  decision: RetryDecision | undefined;
  elapsedMs: number;
}

export type { FailureSummary };

/**
 * The client shape `withToolRetry` wraps. `Client` of `@modelcontextprotocol/sdk` 1.x
 * (`callTool(params, resultSchema?, options?)`) and of `@modelcontextprotocol/client` 2.x
 * (`callTool(params, options?)`) both fit; the arguments are passed through unchanged.
 */
export interface RetryableClient {
  callTool(params: { name: string }, ...rest: never[]): Promise<unknown>;
  listTools?(params?: { cursor?: string }, ...rest: never[]): Promise<unknown>;
}
