/**
 * Every rule the conformance kit reports, by id: the data-model rules of `readToolFailure()`
 * (`TOOL_FAILURE_RULES`), the ones only a session of calls shows (`SESSION_RULES`, judged by
 * `check server`), and the client and intermediary rules (`CLIENT_RULES`, `PROXY_RULES`, judged
 * by `check client` and `check proxy`), with the ids of docs/conformance.md and of the vectors in
 * conformance/. One `Rule` record each; one `RuleVerdict` row per rule in every table. Pure.
 */
import { TOOL_FAILURE_RULES } from '@omcp/tool-failure';
import { type Rule } from '@omcp/tool-failure';

export type { Rule } from '@omcp/tool-failure';

/** The verdict on one rule. */
export type RuleStatus = 'pass' | 'fail' | 'not exercised';

/** One row of a rule table; `V` says where each violation happened (a call, a tool, a case). */
export interface RuleVerdict<V> {
  rule: string;
  level: Rule['level'];
  statement: string;
  status: RuleStatus;
  /** How many times (calls, attempts, cases) the rule was checked. */
  checked: number;
  violations: V[];
}

const rule = <const Id extends string>(
  id: Id,
  level: Rule['level'],
  statement: string,
): Rule & { id: Id } => Object.freeze({ id, level, statement });

/** The data-model rules only a whole session can show (`check server`). */
export const SESSION_RULES = Object.freeze({
  PLACEMENT: rule(
    'TF-PLACEMENT',
    'MUST NOT',
    'A tool failure travels in the result (isError), never as a JSON-RPC error carrying a toolFailure.',
  ),
  META_KEY: rule(
    'TF-META-KEY',
    'MUST',
    'An error result carries its classification under _meta["io.modelcontextprotocol/toolFailure"].',
  ),
  CORRELATION_UNIQUE: rule(
    'TF-CORRELATION-UNIQUE',
    'MUST',
    'Each call gets its own correlationId.',
  ),
  CORRELATION_OPAQUE: rule(
    'TF-CORRELATION-OPAQUE',
    'MUST NOT',
    'correlationId carries no request data (no string argument value of the call).',
  ),
});

/** The client rules `check client` judges, in the order of its table. */
export const CLIENT_RULES = Object.freeze({
  NO_RETRY_CAPABILITY: rule(
    'TF-CLIENT-NO-RETRY-CAPABILITY',
    'MUST NOT',
    'A capability failure is not retried.',
  ),
  NO_RETRY_GOVERNANCE: rule(
    'TF-CLIENT-NO-RETRY-GOVERNANCE',
    'MUST NOT',
    'A governance failure is not retried.',
  ),
  RETRY_REQUIRES_RETRYABLE: rule(
    'TF-CLIENT-RETRY-REQUIRES-RETRYABLE',
    'MUST NOT',
    'A reliability failure without retryable: true is not retried.',
  ),
  RETRY_REQUIRES_IDEMPOTENT: rule(
    'TF-CLIENT-RETRY-REQUIRES-IDEMPOTENT',
    'MUST NOT',
    'A tool without idempotentHint: true is not retried, even when retryable is true.',
  ),
  NOT_BEFORE: rule(
    'TF-CLIENT-NOT-BEFORE',
    'MUST NOT',
    'No retry arrives before the retryNotBefore of the failure it follows.',
  ),
  DISPATCH_ON_CLASS: rule(
    'TF-CLIENT-DISPATCH-ON-CLASS',
    'MUST',
    'A failure with an unrecognised code is handled by its class (here: not retried).',
  ),
  GUIDANCE_AS_DATA: rule(
    'TF-CLIENT-GUIDANCE-AS-DATA',
    'SHOULD',
    'agentGuidance does not change what the client does (a "retry now" guidance is not obeyed).',
  ),
  MALFORMED_NOT_RETRIED: rule(
    'TF-CLIENT-MALFORMED-NOT-RETRIED',
    'MUST',
    'A failure object that breaks the proposal is not retried, whatever it claims.',
  ),
  PRESERVE_FAILURE: rule(
    'TF-CLIENT-PRESERVE-FAILURE',
    'MUST',
    'The caller gets the failure object of the last attempt unchanged, correlationId included.',
  ),
  UNAWARE_UNCHANGED: rule(
    'TF-CLIENT-UNAWARE-UNCHANGED',
    'MUST',
    'An error result without a failure object reaches the caller as it came (isError, content).',
  ),
});

/** The intermediary rules `check proxy` judges. */
export const PROXY_RULES = Object.freeze({
  PRESERVE: rule(
    'TF-PROXY-PRESERVE',
    'MUST',
    'A relayed result arrives unchanged: its _meta serialises identically (unknown keys, key order, correlationId).',
  ),
  NO_REWRITE: rule(
    'TF-PROXY-NO-REWRITE',
    'MUST',
    'No failure object is added to a bare error result, and none is rewritten, valid or not.',
  ),
  NO_RETRY: rule(
    'TF-PROXY-NO-RETRY',
    'MUST NOT',
    'A retryable failure is relayed after one upstream call: no retry on behalf of the client.',
  ),
  OWN_FAILURE: rule(
    'TF-PROXY-OWN-FAILURE',
    'MUST',
    'When the upstream answers no CallToolResult, the intermediary answers a valid failure object of its own.',
  ),
});

/** Every rule the kit knows, by id: data model, session, client and intermediary. */
export const RULES: ReadonlyMap<string, Rule> = new Map(
  [TOOL_FAILURE_RULES, SESSION_RULES, CLIENT_RULES, PROXY_RULES].flatMap((group) =>
    Object.values(group).map((r): [string, Rule] => [r.id, r]),
  ),
);

/** The rule with `id`, or undefined when the kit has none by that id. */
export function ruleById(id: string): Rule | undefined {
  return RULES.get(id);
}
