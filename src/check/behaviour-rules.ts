/**
 * The client and intermediary rules of the tool-failure proposal that `mcp-failures check
 * client` and `mcp-failures check proxy` report, with the ids of docs/conformance.md (sections
 * "Client behaviour" and "Intermediaries") and of the vectors in conformance/. The data-model
 * rules stay in `TOOL_FAILURE_RULES`; these are what a session of calls shows.
 */
import type { ToolFailureRule } from '../tool-failure/rules.js';

/** One behaviour rule: id, the proposal's keyword, the statement in our words. */
export interface BehaviourRule {
  id: string;
  level: ToolFailureRule['level'];
  statement: string;
}

const rule = <const Id extends string>(
  id: Id,
  level: ToolFailureRule['level'],
  statement: string,
): BehaviourRule & { id: Id } => Object.freeze({ id, level, statement });

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
