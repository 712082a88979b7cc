import {
  INVALID_SPAN_CONTEXT,
  SpanKind,
  context,
  SpanStatusCode,
  diag,
  trace,
  type Attributes,
  type Context,
  type Counter,
  type Meter,
  type MeterProvider,
  type ObservableResult,
  type Span,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_TOOL_CALL_ACTION,
  ATTR_MCP_TOOL_CALL_ATTEMPT,
  ATTR_MCP_TOOL_CALL_ATTEMPTS,
  ATTR_MCP_TOOL_CALL_CIRCUIT_PREVIOUS_STATE,
  ATTR_MCP_TOOL_CALL_CIRCUIT_STATE,
  ATTR_MCP_TOOL_CALL_OUTCOME,
  ATTR_MCP_TOOL_CALL_RETRY_DELAY_MS,
  ATTR_MCP_TOOL_CALL_RETRY_DELAY_SOURCE,
  ATTR_MCP_TOOL_CALL_RETRY_REASON,
  ATTR_MCP_TOOL_CALL_STOP_REASON,
  ATTR_MCP_TOOL_FAILURE_CLASS,
  ATTR_MCP_TOOL_FAILURE_CODE,
  ATTR_MCP_TOOL_FAILURE_CORRELATION_ID,
  ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE,
  ERROR_TYPE_VALUE_TOOL_ERROR,
  EVENT_MCP_TOOL_CALL_CIRCUIT_TRANSITION,
  EVENT_MCP_TOOL_CALL_RETRY,
  METRIC_MCP_TOOL_CALL_CIRCUIT_STATUS,
  METRIC_MCP_TOOL_CALL_CIRCUIT_TRANSITIONS,
  METRIC_MCP_TOOL_CALL_RETRIES,
  SPAN_NAME_MCP_TOOL_CALL,
} from '../semconv.js';
import type { LoggerProviderLike, ScopeLogger } from '../shared/logs.js';
import { DEFAULT_RATE_PER_SECOND, exceptionSignalOf } from '../shared/config.js';
import { metricCode } from '../shared/metrics.js';
import { emitFailureRecord, exceptionTypeOf } from '../shared/exception.js';
import { RateBudget } from '../shared/rate-budget.js';
import type {
  CircuitState,
  CircuitTransition,
  FailureSummary,
  RetryDecision,
  ToolCallOutcome,
} from './types.js';

const CIRCUIT_STATES: readonly CircuitState[] = Object.freeze(['closed', 'open', 'half_open']);
import { errorTypeOf } from '../shared/error-type.js';
import { scopeLogger, scopeMeter, scopeTracer } from '../shared/scope.js';

const NO_ALLOW_LIST: ReadonlySet<string> = new Set();

/** What the telemetry of one logical call needs at its end. */
export interface CallEnd {
  outcome: ToolCallOutcome;
  attempts: number;
  decision: RetryDecision | undefined;
  failure: FailureSummary | undefined;
  error?: unknown;
}

/** Spans and metrics of the retry policy, all through `@opentelemetry/api`. */
export class RetryTelemetry {
  private readonly retries: Counter;
  private readonly meterProvider: MeterProvider | undefined;
  private transitions: Counter | undefined;
  private readonly exceptionSpanEvents: boolean;
  private readonly logBudget: RateBudget;
  private readonly logger: ScopeLogger;

  constructor(
    private readonly tracerProvider: TracerProvider | undefined,
    meterProvider: MeterProvider | undefined,
    loggerProvider?: LoggerProviderLike,
    exceptionSignal?: 'logs' | 'logs/dup',
    logsPerSecond?: number,
  ) {
    this.exceptionSpanEvents = exceptionSignalOf(exceptionSignal) === 'logs/dup';
    this.logBudget = new RateBudget(logsPerSecond ?? DEFAULT_RATE_PER_SECOND);
    this.logger = scopeLogger((message) => diag.warn(message), loggerProvider);
    this.meterProvider = meterProvider;
    this.retries = this.meter().createCounter(METRIC_MCP_TOOL_CALL_RETRIES, {
      unit: '{retry}',
      description: 'Retries of logical tool calls, recorded when the logical call ends.',
    });
  }

  private meter(): Meter {
    return scopeMeter(this.meterProvider);
  }

  /**
   * Registers the circuit instruments: `mcp.tool.call.circuit.status`, observed from `states`
   * (held weakly: the callback goes away with the breaker), and the transition counter.
   */
  observeCircuits(owner: object, states: (owner: object) => Array<[string, CircuitState]>): void {
    guard(() => {
      const meter = this.meter();
      this.transitions = meter.createCounter(METRIC_MCP_TOOL_CALL_CIRCUIT_TRANSITIONS, {
        unit: '{transition}',
        description: 'Transitions of tool circuits, by the state entered.',
      });
      const status = meter.createObservableUpDownCounter(METRIC_MCP_TOOL_CALL_CIRCUIT_STATUS, {
        unit: '{circuit}',
        description: 'Per tool and circuit state: 1 for the current state, 0 for the others.',
      });
      const ref = new WeakRef(owner);
      const callback = (result: ObservableResult): void => {
        const alive = ref.deref();
        if (alive === undefined) {
          status.removeCallback(callback);
          return;
        }
        for (const [tool, current] of states(alive)) {
          for (const state of CIRCUIT_STATES) {
            result.observe(state === current ? 1 : 0, {
              [ATTR_GEN_AI_TOOL_NAME]: tool,
              [ATTR_MCP_TOOL_CALL_CIRCUIT_STATE]: state,
            });
          }
        }
      };
      status.addCallback(callback);
    });
  }

  /** Records a circuit transition: a span event on the call that caused it, and the counter. */
  circuitTransition(span: Span, transition: CircuitTransition | undefined): void {
    if (transition === undefined) return;
    guard(() => {
      span.addEvent(EVENT_MCP_TOOL_CALL_CIRCUIT_TRANSITION, {
        [ATTR_MCP_TOOL_CALL_CIRCUIT_STATE]: transition.to,
        [ATTR_MCP_TOOL_CALL_CIRCUIT_PREVIOUS_STATE]: transition.from,
      });
      this.transitions?.add(1, {
        [ATTR_GEN_AI_TOOL_NAME]: transition.key,
        [ATTR_MCP_TOOL_CALL_CIRCUIT_STATE]: transition.to,
      });
    });
  }

  /** The state of the tool's circuit once the call is over, on the call span. */
  circuitState(span: Span, state: CircuitState): void {
    guard(() => span.setAttribute(ATTR_MCP_TOOL_CALL_CIRCUIT_STATE, state));
  }

  /** Starts the INTERNAL span `mcp.tool.call {tool}` covering every attempt of a logical call. */
  startCall(toolName: string, parent: Context): Span {
    try {
      const tracer = scopeTracer(this.tracerProvider);
      return tracer.startSpan(
        `${SPAN_NAME_MCP_TOOL_CALL} ${toolName}`,
        { kind: SpanKind.INTERNAL, attributes: { [ATTR_GEN_AI_TOOL_NAME]: toolName } },
        parent,
      );
    } catch (error) {
      diag.debug('@omcp/instrumentation-mcp retry: could not start a span', error);
      return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    }
  }

  /** Records a span event for a scheduled retry. */
  retryScheduled(span: Span, attempt: number, decision: RetryDecision & { action: 'retry' }): void {
    guard(() => {
      const attributes: Attributes = {
        [ATTR_MCP_TOOL_CALL_ATTEMPT]: attempt,
        [ATTR_MCP_TOOL_CALL_RETRY_DELAY_MS]: decision.delayMs,
        [ATTR_MCP_TOOL_CALL_RETRY_REASON]: decision.reason,
        [ATTR_MCP_TOOL_CALL_RETRY_DELAY_SOURCE]: decision.delaySource,
        [ATTR_MCP_TOOL_FAILURE_CLASS]: decision.failure.class,
        [ATTR_MCP_TOOL_FAILURE_CODE]: decision.failure.code,
      };
      if (decision.failure.retryNotBefore !== undefined)
        attributes[ATTR_MCP_TOOL_FAILURE_RETRY_NOT_BEFORE] = decision.failure.retryNotBefore;
      span.addEvent(EVENT_MCP_TOOL_CALL_RETRY, attributes);
    });
  }

  /** Sets the final attributes and status, ends the span and records the retry counter. */
  endCall(span: Span, toolName: string, end: CallEnd): void {
    guard(() => {
      const { outcome, attempts, decision, failure, error } = end;
      span.setAttribute(ATTR_MCP_TOOL_CALL_ATTEMPTS, attempts);
      span.setAttribute(ATTR_MCP_TOOL_CALL_OUTCOME, outcome);
      if (failure !== undefined) {
        span.setAttribute(ATTR_MCP_TOOL_FAILURE_CLASS, failure.class);
        span.setAttribute(ATTR_MCP_TOOL_FAILURE_CODE, failure.code);
        if (failure.correlationId !== undefined)
          span.setAttribute(ATTR_MCP_TOOL_FAILURE_CORRELATION_ID, failure.correlationId);
      }
      if (decision !== undefined && decision.action !== 'retry') {
        span.setAttribute(ATTR_MCP_TOOL_CALL_ACTION, decision.action);
        if (decision.action === 'stop')
          span.setAttribute(ATTR_MCP_TOOL_CALL_STOP_REASON, decision.reason);
      }
      if (outcome !== 'success') {
        const errorType =
          outcome === 'aborted' || error !== undefined
            ? errorTypeOf(error, outcome === 'aborted')
            : ERROR_TYPE_VALUE_TOOL_ERROR;
        span.setAttribute(ATTR_ERROR_TYPE, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
        if (outcome === 'error' && error !== undefined) this.recordException(span, toolName, error);
      }
      const attributes: Attributes = {
        [ATTR_GEN_AI_TOOL_NAME]: toolName,
        [ATTR_MCP_TOOL_CALL_OUTCOME]: outcome,
      };
      if (failure !== undefined) {
        attributes[ATTR_MCP_TOOL_FAILURE_CLASS] = failure.class;
        attributes[ATTR_MCP_TOOL_FAILURE_CODE] = metricCode(failure.code, NO_ALLOW_LIST);
      }
      this.retries.add(Math.max(0, attempts - 1), attributes);
    });
    guard(() => span.end());
  }

  /**
   * The error thrown to the caller, as the conventions record exceptions: a log record in the
   * span's context (WARN: the caller receives the error and decides), up to the log budget, and
   * with `logs/dup` an `exception` span event as well.
   */
  private recordException(span: Span, toolName: string, error: unknown): void {
    if (this.exceptionSpanEvents && error instanceof Error) span.recordException(error);
    const type = error instanceof Error ? exceptionTypeOf(error) : 'NonError';
    const suppressed = this.logBudget.take(toolName, type);
    if (suppressed < 0) return;
    emitFailureRecord(this.logger, {
      severity: 'WARN',
      body: `${SPAN_NAME_MCP_TOOL_CALL} ${toolName} failed with a thrown error`,
      attributes: { [ATTR_GEN_AI_TOOL_NAME]: toolName },
      thrown: error,
      withStack: true,
      suppressed,
      context: trace.setSpan(context.active(), span),
    });
  }
}

/** Runs telemetry work; a failure there is reported to `diag`, never to the caller. */
export function guard(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    diag.debug('@omcp/instrumentation-mcp retry: telemetry failed', error);
  }
}

/** Calls a user hook safely: a throw, or a rejected promise it returns, is reported and ignored. */
export function safeHook<I>(hook: ((info: I) => void) | undefined, info: I): void {
  if (hook === undefined) return;
  try {
    const returned: unknown = hook(Object.freeze(info));
    if (returned instanceof Promise) {
      returned.catch((error: unknown) =>
        diag.warn('@omcp/instrumentation-mcp retry: hook rejected', error),
      );
    }
  } catch (error) {
    diag.warn('@omcp/instrumentation-mcp retry: hook threw', error);
  }
}
