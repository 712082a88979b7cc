/**
 * The pure part of `mcp-failures check server`: given the calls made to a server and what came
 * back, which rules of the tool-failure extension passed, failed or were never exercised. No
 * I/O: the CLI gathers the outcomes, this decides. Failure objects are judged by
 * `readToolFailure()` and its rule ids; only what one object cannot show (placement, a
 * correlationId shared between calls or carrying request data) is checked here.
 */
import { isRecord } from '@omcp/tool-failure/wire';
import { TOOL_FAILURE_META_KEY, readToolFailure, TOOL_FAILURE_RULES } from '@omcp/tool-failure';
import { Tally } from './rule-table.js';
import { SESSION_RULES, type RuleVerdict } from './rules.js';

/** What one `tools/call` got back. */
export type CallAnswer =
  | { kind: 'result'; result: unknown }
  | { kind: 'rpc-error'; code: number; message: string; data?: unknown }
  /** No answer at all (timeout, connection lost): nothing to judge. */
  | { kind: 'no-answer'; detail: string };

/** One call the checker made and its answer. */
export interface CallOutcome {
  tool: string;
  arguments: Record<string, unknown>;
  answer: CallAnswer;
}

/** What the server said of the extension in the capabilities the checker saw. */
export interface DeclarationSeen {
  /** Whether a capabilities object the server sent declares the extension. */
  declared: boolean;
  /** Where the checker looked: `initialize`, `server/discover (2026-07-28)`. */
  looked: string[];
  /** What could not be looked at, one line each. */
  notes: string[];
}

/**
 * `declared`: the server declares the extension (and no failing call contradicted it);
 * `not declared`: it does not; `declared but not implemented`: it declares the extension but an
 * error result came back without a failure object.
 */
export type DeclarationStatus = 'declared' | 'not declared' | 'declared but not implemented';

export type { RuleStatus } from './rules.js';

/** One call that broke a rule. */
export interface RuleViolation {
  /** Index of the call in the outcomes, from 0. */
  call: number;
  tool: string;
  message: string;
}

/** A row of `check server`: violations named by call. */
export type ServerRuleVerdict = RuleVerdict<RuleViolation>;

/** Everything `checkServerOutcomes` concludes. */
export interface ServerCheckReport {
  rules: ServerRuleVerdict[];
  calls: number;
  /** Results with `isError: true`. */
  errorResults: number;
  /** Failure objects found in results, valid or not. */
  failureObjects: number;
  /** Error results with no failure object. */
  bareErrorResults: number;
  /** JSON-RPC errors answered to `tools/call`. */
  rpcErrors: number;
  /** Calls with no answer. */
  unanswered: number;
  /** False when error results came back and none carried a failure object. */
  extensionImplemented: boolean;
  /** The server's declaration of the extension, judged against its failing calls. */
  declaration: { status: DeclarationStatus } & DeclarationSeen;
  /** 'fail' when any rule failed or the extension is not implemented. */
  verdict: 'pass' | 'fail';
}

/**
 * Argument values shorter than this are only compared for equality: a short string (`"a"`,
 * `"42"`) turns up inside an opaque hex ID by chance.
 */
export const MIN_CONTAINED_ARGUMENT_LENGTH = 4;

/** Fields whose rules apply only when the field is present. */
const FIELD_RULES: Readonly<Record<string, string>> = {
  [TOOL_FAILURE_RULES.RETRYABLE_TYPE.id]: 'retryable',
  [TOOL_FAILURE_RULES.RETRYABLE_CLASS.id]: 'retryable',
  [TOOL_FAILURE_RULES.RETRY_NOT_BEFORE_TYPE.id]: 'retryNotBefore',
  [TOOL_FAILURE_RULES.RETRY_NOT_BEFORE_RETRYABLE.id]: 'retryNotBefore',
  [TOOL_FAILURE_RULES.GUIDANCE_TYPE.id]: 'agentGuidance',
};

/**
 * Judges the outcomes of one session of calls against the extension's rules, and the server's
 * declaration of the extension (`declared`; none seen is "not declared") against them.
 */
export function checkServerOutcomes(
  outcomes: readonly CallOutcome[],
  declared: DeclarationSeen = { declared: false, looked: [], notes: [] },
): ServerCheckReport {
  const judge = new SessionJudge(outcomes);
  outcomes.forEach((outcome, call) => judge.judge(outcome, call));
  return judge.report(declared);
}

/** The tally and the counts of one session, every counter updated in one place. */
class SessionJudge {
  private readonly tally = new Tally<RuleViolation>();
  /** correlationId to the first call that got it. */
  private readonly seen = new Map<string, number>();
  private errorResults = 0;
  private failureObjects = 0;
  private bareErrorResults = 0;
  private rpcErrors = 0;
  private unanswered = 0;
  private correlationIds = 0;

  constructor(private readonly outcomes: readonly CallOutcome[]) {}

  judge(outcome: CallOutcome, call: number): void {
    const at = (message: string): RuleViolation => ({ call, tool: outcome.tool, message });
    const answer = outcome.answer;
    if (answer.kind === 'no-answer') {
      this.unanswered += 1;
    } else if (answer.kind === 'rpc-error') {
      this.rpcErrors += 1;
      this.tally.exercise(SESSION_RULES.PLACEMENT.id);
      const where = failureInRpcError(answer);
      if (where !== undefined)
        this.tally.violate(
          SESSION_RULES.PLACEMENT.id,
          at(`JSON-RPC error ${answer.code} carries a toolFailure in its ${where}`),
        );
    } else {
      this.judgeResult(answer.result, outcome, call, at);
    }
  }

  private judgeResult(
    result: unknown,
    outcome: CallOutcome,
    call: number,
    at: (message: string) => RuleViolation,
  ): void {
    const R = SESSION_RULES;
    const isError = isRecord(result) && result.isError === true;
    if (isError) this.errorResults += 1;
    const meta = isRecord(result) ? result._meta : undefined;
    if (meta !== undefined) this.tally.exercise(TOOL_FAILURE_RULES.META_OBJECT.id);
    const reading = readToolFailure(result);
    for (const p of reading.problems) this.tally.violate(p.rule, at(p.message));
    if (reading.status === 'absent') {
      if (isError) {
        this.bareErrorResults += 1;
        this.tally.violate(R.META_KEY.id, at('an error result carried no failure object'));
      }
      return;
    }
    this.failureObjects += 1;
    this.tally.exercise(R.PLACEMENT.id);
    this.tally.exercise(R.META_KEY.id);
    const raw = reading.status === 'valid' ? reading.failure : reading.raw;
    for (const rule of Object.values(TOOL_FAILURE_RULES)) {
      if (rule.id === TOOL_FAILURE_RULES.META_OBJECT.id) continue;
      const field = FIELD_RULES[rule.id];
      if (field === undefined || (isRecord(raw) && Object.hasOwn(raw, field)))
        this.tally.exercise(rule.id);
    }
    const correlationId = isRecord(raw) ? raw.correlationId : undefined;
    if (typeof correlationId === 'string' && correlationId !== '')
      this.judgeCorrelation(correlationId, outcome, call, at);
  }

  private judgeCorrelation(
    correlationId: string,
    outcome: CallOutcome,
    call: number,
    at: (message: string) => RuleViolation,
  ): void {
    const R = SESSION_RULES;
    this.tally.exercise(R.CORRELATION_OPAQUE.id);
    if (carriesArgument(correlationId, outcome.arguments))
      this.tally.violate(
        R.CORRELATION_OPAQUE.id,
        at('correlationId equals or contains a string argument value of the call'),
      );
    this.correlationIds += 1;
    const first = this.seen.get(correlationId);
    if (first === undefined) {
      this.seen.set(correlationId, call);
    } else {
      this.tally.violate(
        R.CORRELATION_UNIQUE.id,
        at(`correlationId is the one call ${first} (${this.outcomes[first]?.tool ?? '?'}) got`),
      );
    }
  }

  report(declared: DeclarationSeen): ServerCheckReport {
    const R = SESSION_RULES;
    // Uniqueness takes two calls to show: one correlationId alone proves nothing.
    if (this.correlationIds > 1) this.tally.exercise(R.CORRELATION_UNIQUE.id, this.correlationIds);
    const rules: ServerRuleVerdict[] = [
      this.tally.verdict(R.PLACEMENT),
      this.tally.verdict(R.META_KEY),
      ...Object.values(TOOL_FAILURE_RULES).map((rule) => this.tally.verdict(rule)),
      this.tally.verdict(R.CORRELATION_UNIQUE),
      this.tally.verdict(R.CORRELATION_OPAQUE),
    ];
    const extensionImplemented = this.errorResults === 0 || this.failureObjects > 0;
    const failed = rules.some((r) => r.status === 'fail');
    return {
      rules,
      calls: this.outcomes.length,
      errorResults: this.errorResults,
      failureObjects: this.failureObjects,
      bareErrorResults: this.bareErrorResults,
      rpcErrors: this.rpcErrors,
      unanswered: this.unanswered,
      extensionImplemented,
      declaration: {
        status: declarationStatus(declared.declared, this.bareErrorResults),
        ...declared,
      },
      verdict: failed || !extensionImplemented ? 'fail' : 'pass',
    };
  }
}

/** A declaration promises a failure object on every error result: one without breaks it. */
export function declarationStatus(declared: boolean, bareErrorResults: number): DeclarationStatus {
  if (!declared) return 'not declared';
  return bareErrorResults > 0 ? 'declared but not implemented' : 'declared';
}

/** Where a JSON-RPC error carries a failure object, if it does: its data or its message. */
function failureInRpcError(error: { message: string; data?: unknown }): string | undefined {
  if (containsFailureKey(error.data, 0)) return 'data';
  if (error.message.includes(TOOL_FAILURE_META_KEY)) return 'message';
  return undefined;
}

function containsFailureKey(value: unknown, depth: number): boolean {
  if (depth > 8) return false;
  if (typeof value === 'string') return value.includes(TOOL_FAILURE_META_KEY);
  if (Array.isArray(value)) return value.some((v) => containsFailureKey(v, depth + 1));
  if (!isRecord(value)) return false;
  for (const [key, v] of Object.entries(value)) {
    if (key === TOOL_FAILURE_META_KEY) return true;
    if (containsFailureKey(v, depth + 1)) return true;
  }
  return false;
}

function carriesArgument(correlationId: string, args: unknown, depth = 0): boolean {
  if (depth > 8) return false;
  if (typeof args === 'string') {
    if (args === '') return false;
    if (args === correlationId) return true;
    return args.length >= MIN_CONTAINED_ARGUMENT_LENGTH && correlationId.includes(args);
  }
  if (Array.isArray(args)) return args.some((v) => carriesArgument(correlationId, v, depth + 1));
  if (!isRecord(args)) return false;
  return Object.values(args).some((v) => carriesArgument(correlationId, v, depth + 1));
}
