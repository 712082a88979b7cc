/**
 * The pure part of `mcp-failures check client`: given the tools the scripted server listed, the
 * tools/call requests it received (with their arrival times) and the results the client printed,
 * which client rules passed, failed or were never exercised. Whether a further attempt was
 * allowed is `decide()`'s answer (src/retry/decide.ts), the reference client policy, so the
 * checker and the retry policy cannot disagree on a rule.
 */
import { isRecord } from '@omcp/tool-failure/wire';
import { decide, type RetryDecision } from '@omcp/instrumentation-mcp/retry';
import { baselineClassOfCode, TOOL_FAILURE_META_KEY, readToolFailure } from '@omcp/tool-failure';
import { CLIENT_RULES, type Rule } from './rules.js';
import { RuleTally, type BehaviourVerdict } from './rule-table.js';
import type { ScriptedCall } from './scripted.js';

/** A listed tool, as the checker needs it. */
export interface ListedTool {
  name: string;
  annotations?: Record<string, unknown>;
}

/** One result the client printed: `{"tool": name, "result": CallToolResult}`. */
export interface PrintedResult {
  tool: string;
  result: unknown;
}

/** What the client did with one tool. */
export interface ToolActivity {
  tool: string;
  attempts: number;
  /** Milliseconds from the first attempt's arrival to each later one's. */
  offsetsMs: number[];
  /** What the reference policy decides after each attempt, `retry` or why not. */
  decisions: string[];
  printed: boolean;
}

/** Everything `checkClientSession` concludes. */
export interface ClientCheckReport {
  rules: BehaviourVerdict[];
  tools: ToolActivity[];
  /** Listed tools the client never called. */
  notCalled: string[];
  /** tools/call requests received in all. */
  calls: number;
  /** Result lines the client printed. */
  printedResults: number;
  verdict: 'pass' | 'fail';
}

/**
 * How early an attempt may arrive before retryNotBefore and still count as at it: Node's
 * timers (and others) can fire a millisecond before the wall clock reads the due time.
 */
export const NOT_BEFORE_TOLERANCE_MS = 2;

/** The rule a no-retry decision protects. `not_classified`: none (an opaque error, as today). */
function ruleOfStop(decision: RetryDecision): Rule | undefined {
  switch (decision.reason) {
    case 'capability':
      return CLIENT_RULES.NO_RETRY_CAPABILITY;
    case 'governance':
      return CLIENT_RULES.NO_RETRY_GOVERNANCE;
    case 'not_retryable':
      return CLIENT_RULES.RETRY_REQUIRES_RETRYABLE;
    case 'not_idempotent':
      return CLIENT_RULES.RETRY_REQUIRES_IDEMPOTENT;
    case 'malformed':
      return CLIENT_RULES.MALFORMED_NOT_RETRIED;
    default:
      return undefined;
  }
}

const UNLIMITED = Object.freeze({
  maxAttempts: Number.POSITIVE_INFINITY,
  maxElapsedMs: Number.POSITIVE_INFINITY,
});

function failureOf(result: unknown): unknown {
  if (!isRecord(result) || !isRecord(result._meta)) return undefined;
  return result._meta[TOOL_FAILURE_META_KEY];
}

/** Judges one run of the client under test. */
export function checkClientSession(
  tools: readonly ListedTool[],
  calls: readonly ScriptedCall[],
  printed: readonly PrintedResult[],
): ClientCheckReport {
  const tally = new RuleTally();
  const activity: ToolActivity[] = [];
  const notCalled: string[] = [];
  const printedBy = new Map<string, unknown>();
  for (const p of printed) printedBy.set(p.tool, p.result);

  for (const tool of tools) {
    const attempts = calls
      .filter((c) => c.tool === tool.name)
      .sort((a, b) => a.attempt - b.attempt);
    if (attempts.length === 0) {
      notCalled.push(tool.name);
      continue;
    }
    const first = attempts[0]?.receivedAt ?? 0;
    const decisions = attempts.map((_, i) => judgeAttempt(tally, tool, attempts, i));
    if (printed.length > 0) judgeHandOff(tally, tool.name, attempts, printedBy);
    activity.push({
      tool: tool.name,
      attempts: attempts.length,
      offsetsMs: attempts.slice(1).map((a) => a.receivedAt - first),
      decisions,
      printed: printedBy.has(tool.name),
    });
  }

  const rules = Object.values(CLIENT_RULES).map((rule) => tally.verdict(rule));
  const failed = rules.some((r) => r.status === 'fail');
  return {
    rules,
    tools: activity,
    notCalled,
    calls: calls.length,
    printedResults: printed.length,
    verdict: failed || activity.length === 0 ? 'fail' : 'pass',
  };
}

/**
 * Judges attempt `i` of `tool` by what came after it: a further attempt the reference policy
 * would not make breaks the rule that forbids it, one before retryNotBefore breaks NOT_BEFORE.
 * Returns what the policy decides after it: `success`, `retry` or why not.
 */
function judgeAttempt(
  tally: RuleTally,
  tool: ListedTool,
  attempts: readonly ScriptedCall[],
  i: number,
): string {
  const R = CLIENT_RULES;
  const call = attempts[i];
  if (call === undefined) return 'success';
  const next = attempts[i + 1];
  const reading = readToolFailure(call.result);
  const isError = isRecord(call.result) && call.result.isError === true;
  if (!isError && reading.status === 'absent') return 'success';
  const decision = decide(reading, {
    attempt: i + 1,
    annotations: tool.annotations,
    now: call.receivedAt,
    elapsedMs: 0,
    limits: UNLIMITED,
  });
  const after = `attempt ${i + 2} arrived ${next === undefined ? 0 : next.receivedAt - call.receivedAt} ms after attempt ${i + 1}`;
  if (decision.action !== 'retry') {
    const guarded = ruleOfStop(decision);
    const also: Rule[] = [];
    if (reading.status === 'valid') {
      if (baselineClassOfCode(reading.failure.code) === undefined) also.push(R.DISPATCH_ON_CLASS);
      if (reading.failure.agentGuidance !== undefined) also.push(R.GUIDANCE_AS_DATA);
    }
    for (const rule of guarded === undefined ? also : [guarded, ...also]) {
      tally.exercise(rule);
      if (next !== undefined)
        tally.violate(rule, tool.name, `retried a failure the rule forbids: ${after}`);
    }
    return decision.reason;
  }
  const notBefore = decision.failure?.retryNotBefore;
  if (notBefore === undefined) return 'retry';
  tally.exercise(R.NOT_BEFORE);
  if (next !== undefined && next.receivedAt + NOT_BEFORE_TOLERANCE_MS < notBefore)
    tally.violate(
      R.NOT_BEFORE,
      tool.name,
      `${after}, ${notBefore - next.receivedAt} ms before retryNotBefore`,
    );
  return 'retry';
}

/**
 * Judges what the caller got for `tool` (the client printed results): the last attempt's
 * failure object unchanged, or a bare error result as the server sent it.
 */
function judgeHandOff(
  tally: RuleTally,
  tool: string,
  attempts: readonly ScriptedCall[],
  printedBy: ReadonlyMap<string, unknown>,
): void {
  const R = CLIENT_RULES;
  const last = attempts.at(-1)?.result;
  const hasPrinted = printedBy.has(tool);
  const got = printedBy.get(tool);
  const lastFailure = failureOf(last);
  if (lastFailure !== undefined) {
    tally.exercise(R.PRESERVE_FAILURE);
    if (!hasPrinted) {
      tally.violate(R.PRESERVE_FAILURE, tool, 'the client printed no result for it');
    } else if (!sameJson(failureOf(got), lastFailure)) {
      const earlier = attempts.findIndex((a) => sameJson(failureOf(a.result), failureOf(got)));
      tally.violate(
        R.PRESERVE_FAILURE,
        tool,
        earlier >= 0
          ? `the caller got the failure object of attempt ${earlier + 1}, not of the last one (${attempts.length})`
          : 'the failure object the caller got differs from the one the server sent',
      );
    }
    return;
  }
  if (!isRecord(last) || last.isError !== true) return;
  tally.exercise(R.UNAWARE_UNCHANGED);
  if (!hasPrinted) {
    tally.violate(R.UNAWARE_UNCHANGED, tool, 'the client printed no result for it');
  } else if (
    !isRecord(got) ||
    got.isError !== true ||
    !sameJson(got.content, last.content) ||
    failureOf(got) !== undefined
  ) {
    tally.violate(
      R.UNAWARE_UNCHANGED,
      tool,
      'the caller did not get isError and content as the server sent them (or got a failure object added)',
    );
  }
}

/** Deep equality of JSON values, object key order aside. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameJson(v, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}
