/**
 * The pure part of `mcp-failures check proxy`: for each case, what the scripted upstream sent,
 * how many tools/call requests reached it, and what the checker (as the client) received through
 * the intermediary. "Unchanged" is the vectors' definition (conformance/intermediary-cases.json):
 * the same JSON value, and a `_meta` that serialises to the same text (keys, their order, values);
 * the order of the result's own top-level keys is not compared. On the 2026-07-28 revision a
 * result's `resultType: "complete"` is the revision's own field, required on its wire: one the
 * upstream did not send is not counted as a change.
 */
import { MODERN_REVISION, isRecord } from '@omcp/tool-failure/wire';
import { TOOL_FAILURE_META_KEY, readToolFailure } from '@omcp/tool-failure';
import { PROXY_RULES, ruleById, type Rule } from './rules.js';
import { sameJson } from './client.js';
import { RuleTally, type BehaviourVerdict } from './rule-table.js';
import type { ProxyCase } from './scripted.js';
import type { CallAnswer } from './server.js';

/** One case as played through the intermediary. */
export interface ProxyOutcome {
  case: string;
  answer: CallAnswer;
  /** tools/call requests of this case's tool that reached the upstream. */
  upstreamCalls: number;
}

/** Everything `checkProxyOutcomes` concludes. */
export interface ProxyCheckReport {
  rules: BehaviourVerdict[];
  cases: number;
  verdict: 'pass' | 'fail';
}

const proxyRuleIds = new Set<string>(Object.values(PROXY_RULES).map((r) => r.id));
/** Whether `r` is an intermediary rule: the other rules a case names are not `check proxy`'s. */
const isProxyRule = (r: Rule | undefined): r is Rule => r !== undefined && proxyRuleIds.has(r.id);

/** Judges the cases played through the intermediary under test, spoken to in `revision`. */
export function checkProxyOutcomes(
  cases: readonly ProxyCase[],
  outcomes: readonly ProxyOutcome[],
  revision?: string,
): ProxyCheckReport {
  const tally = new RuleTally();
  const P = PROXY_RULES;
  const played = new Map(outcomes.map((o) => [o.case, o]));
  for (const c of cases) {
    const outcome = played.get(c.id);
    if (outcome === undefined) continue;
    const rules = c.rules.map(ruleById).filter(isProxyRule);
    const answer = outcome.answer;
    if (c.expect.forwarded === 'unchanged') {
      const want = c.expect.upstreamCalls;
      for (const rule of rules) {
        tally.exercise(rule);
        if (rule === P.NO_RETRY) {
          if (outcome.upstreamCalls !== want)
            tally.violate(
              rule,
              c.id,
              `${outcome.upstreamCalls} tools/call requests reached the upstream, expected ${want}`,
            );
          continue;
        }
        const change = changeOf(
          c.result,
          revision === MODERN_REVISION ? withoutRevisionFields(c.result, answer) : answer,
        );
        if (change !== undefined) tally.violate(rule, c.id, change);
      }
      continue;
    }
    const own = c.expect.ownFailure;
    for (const rule of rules) {
      tally.exercise(rule);
      const problem = ownFailureProblem(own, answer);
      if (problem !== undefined) tally.violate(rule, c.id, problem);
    }
  }
  const rules = Object.values(P).map((r) => tally.verdict(r));
  const failed = rules.some((r) => r.status === 'fail');
  return {
    rules,
    cases: outcomes.length,
    verdict: failed || outcomes.length === 0 ? 'fail' : 'pass',
  };
}

/** The answer without a `resultType: "complete"` that the upstream's result did not have. */
function withoutRevisionFields(sent: unknown, answer: CallAnswer): CallAnswer {
  if (answer.kind !== 'result' || !isRecord(answer.result) || !isRecord(sent)) return answer;
  if (Object.hasOwn(sent, 'resultType') || answer.result.resultType !== 'complete') return answer;
  const { resultType: _stamped, ...result } = answer.result;
  return { kind: 'result', result };
}

/** What changed between what the upstream sent and what arrived, in one line; none: undefined. */
function changeOf(sent: unknown, answer: CallAnswer): string | undefined {
  if (answer.kind === 'no-answer') return `no answer (${answer.detail})`;
  if (answer.kind === 'rpc-error')
    return `the client got JSON-RPC error ${answer.code} instead of the result`;
  const got = answer.result;
  if (!isRecord(sent) || !isRecord(got)) return sameJson(sent, got) ? undefined : 'result changed';
  const sentMeta = sent._meta;
  const gotMeta = got._meta;
  if (JSON.stringify(sentMeta) !== JSON.stringify(gotMeta)) return metaChange(sentMeta, gotMeta);
  const rest = (r: Record<string, unknown>): Record<string, unknown> => {
    const { _meta: _omit, ...others } = r;
    return others;
  };
  if (!sameJson(rest(sent), rest(got))) {
    const keys = new Set([...Object.keys(sent), ...Object.keys(got)]);
    const differ = [...keys].filter((k) => k !== '_meta' && !sameJson(sent[k], got[k]));
    return `the result changed outside _meta (${differ.join(', ')})`;
  }
  return undefined;
}

function metaChange(sent: unknown, got: unknown): string {
  if (got === undefined) return '_meta was dropped';
  if (!isRecord(sent) || !isRecord(got)) return '_meta changed';
  const missing = Object.keys(sent).filter((k) => !Object.hasOwn(got, k));
  const added = Object.keys(got).filter((k) => !Object.hasOwn(sent, k));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`keys dropped: ${missing.join(', ')}`);
  if (added.length > 0) parts.push(`keys added: ${added.join(', ')}`);
  const changed = Object.keys(sent).filter(
    (k) => Object.hasOwn(got, k) && JSON.stringify(sent[k]) !== JSON.stringify(got[k]),
  );
  if (changed.length > 0)
    parts.push(
      `values changed: ${changed.join(', ')}${changed.every((k) => sameJson(sent[k], got[k])) ? ' (key order)' : ''}`,
    );
  if (parts.length === 0) parts.push('key order changed');
  return `_meta changed: ${parts.join('; ')}`;
}

function ownFailureProblem(
  own: { class: string; codes: string[]; retryable: boolean },
  answer: CallAnswer,
): string | undefined {
  if (answer.kind === 'no-answer') return `no answer (${answer.detail})`;
  if (answer.kind === 'rpc-error')
    return `the client got JSON-RPC error ${answer.code}, not a result with a failure object`;
  const result = answer.result;
  if (!isRecord(result) || result.isError !== true)
    return 'the client did not get an error result (isError: true)';
  const reading = readToolFailure(result);
  if (reading.status !== 'valid' || reading.problems.length > 0)
    return `the failure object is ${reading.status === 'absent' ? 'missing' : 'not valid'} (${reading.problems.map((p) => p.rule).join(', ') || `no ${TOOL_FAILURE_META_KEY}`})`;
  const f = reading.failure;
  if (f.class !== own.class) return `class is ${f.class}, expected ${own.class}`;
  if (own.codes.length > 0 && !own.codes.includes(f.code))
    return `code is ${f.code}, expected one of ${own.codes.join(', ')}`;
  if (own.retryable && f.retryable !== true) return 'retryable is not true';
  if (!own.retryable && f.retryable === true)
    return 'retryable is true for an answer that may not be repeated';
  return undefined;
}
