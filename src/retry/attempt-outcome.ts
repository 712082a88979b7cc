import { readToolFailure } from '@omcp/tool-failure';
import type {
  ToolFailure,
  ToolFailureClass,
  ToolFailureReading,
  FailureSummary,
} from '@omcp/tool-failure';
import type { CallEnd } from './telemetry.js';
import type { CircuitOutcome, RetryDecision } from './types.js';

/**
 * How one attempt of a logical call ended, whether `callTool` returned or threw: the one value
 * the engine's decision path reads. Pure data.
 */
export type AttemptOutcome =
  /** A result without `isError: true`. */
  | { kind: 'success'; result: unknown; reading: ToolFailureReading }
  /**
   * An `isError: true` result, read under the engine's `_meta` key. `local`: the open circuit's
   * own answer, the call was never sent.
   */
  | {
      kind: 'failure';
      result: unknown;
      reading: ToolFailureReading;
      failure: ToolFailure | undefined;
      local: boolean;
    }
  /** `callTool` threw, and the caller had not aborted: the error, classified. */
  | { kind: 'thrown'; error: unknown; summary: FailureSummary }
  /** `callTool` threw after the caller's signal aborted. */
  | { kind: 'aborted'; error: unknown };

/** The reading of a result with no failure to read (a success). */
export const ABSENT: ToolFailureReading = Object.freeze({ status: 'absent', problems: [] });

/** Whether `result` is a `CallToolResult` with `isError: true`. */
export function isErrorResult(result: unknown): boolean {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  );
}

/** The outcome of an attempt that returned `result` (`local` for an open circuit's answer). */
export function resultOutcome(result: unknown, metaKey: string, local: boolean): AttemptOutcome {
  if (!isErrorResult(result)) return { kind: 'success', result, reading: ABSENT };
  const reading = readToolFailure(result, { metaKey });
  const failure = reading.status === 'valid' ? reading.failure : undefined;
  return { kind: 'failure', result, reading, failure, local };
}

/**
 * The outcome of an attempt that threw `error`. An abort is not classified (`summarize` is not
 * called): the caller ended the call, the server said nothing.
 */
export function thrownOutcome(
  error: unknown,
  aborted: boolean,
  summarize: (error: unknown) => FailureSummary,
): AttemptOutcome {
  if (aborted) return { kind: 'aborted', error };
  return { kind: 'thrown', error, summary: summarize(error) };
}

/** The class of what went wrong, or `undefined` for a success, an abort or an opaque error. */
export function failureClassOf(outcome: AttemptOutcome): ToolFailureClass | undefined {
  switch (outcome.kind) {
    case 'failure':
      return outcome.failure?.class;
    case 'thrown':
      return outcome.summary.class;
    default:
      return undefined;
  }
}

/**
 * What the attempt tells the tool's circuit: only server-side trouble (class reliability) is a
 * failure, an abort is ignored, any other answer shows the server works.
 */
export function circuitOutcomeOf(outcome: AttemptOutcome): CircuitOutcome {
  if (outcome.kind === 'aborted') return 'ignored';
  return failureClassOf(outcome) === 'reliability' ? 'failure' : 'success';
}

/**
 * How the logical call ends on a failed or thrown attempt that is not retried, after `decision`
 * (`undefined` when thrown errors are not retried). A thrown error ends in `error` unless a
 * budget or the attempt limit stopped it; a failure ends in `failure` unless one did.
 */
export function endOfStop(
  outcome: AttemptOutcome & { kind: 'failure' | 'thrown' },
  decision: RetryDecision | undefined,
  attempts: number,
): CallEnd {
  const stopped = decision?.action === 'stop' ? decision.outcome : 'failure';
  const failure = decision?.failure;
  if (outcome.kind === 'failure') return { outcome: stopped, attempts, decision, failure };
  const ended = stopped === 'failure' ? 'error' : stopped;
  return { outcome: ended, attempts, decision, failure, error: outcome.error };
}
