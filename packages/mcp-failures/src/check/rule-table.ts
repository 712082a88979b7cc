/**
 * The rule tables of every checker: a tally of which rules were checked and broken, turned into
 * `RuleVerdict` rows, and the rows as text. Pure.
 */
import type { Rule, RuleStatus, RuleVerdict } from './rules.js';

const MAX_VIOLATIONS_SHOWN = 3;

/** One broken rule: where (a tool, or a case) and a one-line message. */
export interface BehaviourViolation {
  /** The tool (check client) or the case (check proxy) it happened on. */
  on: string;
  message: string;
}

/** A row of `check client` or `check proxy`: violations named by tool or case. */
export type BehaviourVerdict = RuleVerdict<BehaviourViolation>;

/** Counts, per rule id, the checks made and the violations (of shape `V`) found. */
export class Tally<V> {
  private readonly checked = new Map<string, number>();
  private readonly violations = new Map<string, V[]>();

  /** Counts `times` more checks of `rule`. */
  exercise(rule: string, times = 1): void {
    this.checked.set(rule, (this.checked.get(rule) ?? 0) + times);
  }

  violate(rule: string, violation: V): void {
    const list = this.violations.get(rule) ?? [];
    list.push(violation);
    this.violations.set(rule, list);
  }

  /** The rule's row: failed when violated, passed when checked, else not exercised. */
  verdict(rule: Rule): RuleVerdict<V> {
    const checked = this.checked.get(rule.id) ?? 0;
    const violations = this.violations.get(rule.id) ?? [];
    const status: RuleStatus =
      violations.length > 0 ? 'fail' : checked > 0 ? 'pass' : 'not exercised';
    return {
      rule: rule.id,
      level: rule.level,
      statement: rule.statement,
      status,
      checked: Math.max(checked, violations.length),
      violations,
    };
  }
}

/** The tally of `check client` and `check proxy`: rules given as objects, violations by place. */
export class RuleTally {
  private readonly tally = new Tally<BehaviourViolation>();

  exercise(rule: Rule): void {
    this.tally.exercise(rule.id);
  }

  violate(rule: Rule, on: string, message: string): void {
    this.tally.violate(rule.id, { on, message });
  }

  verdict(rule: Rule): BehaviourVerdict {
    return this.tally.verdict(rule);
  }
}

/**
 * The rows of a rule table, as every checker prints them: rule -> result, then the first
 * violations of each failed rule (`describe` says where each happened).
 */
export function ruleTableLines<V extends { message: string }>(
  rules: ReadonlyArray<RuleVerdict<V>>,
  where: (violation: V) => string,
): string[] {
  const width = Math.max(...rules.map((r) => r.rule.length), 'rule'.length);
  const lines: string[] = [`${'rule'.padEnd(width)}  result`];
  for (const r of rules) {
    const count = r.status === 'not exercised' ? '' : ` (${r.checked} checked)`;
    lines.push(`${r.rule.padEnd(width)}  ${r.status}${count}`);
  }
  const failed = rules.filter((r) => r.status === 'fail');
  if (failed.length > 0) lines.push('');
  for (const r of failed) {
    for (const v of r.violations.slice(0, MAX_VIOLATIONS_SHOWN))
      lines.push(`${r.rule}: ${where(v)}: ${v.message}`);
    const more = r.violations.length - MAX_VIOLATIONS_SHOWN;
    if (more > 0) lines.push(`${r.rule}: and ${more} more`);
  }
  return lines;
}

/**
 * The table as text, in the shape of `check server`'s: rule -> result, the first violations of
 * each failed rule, then `notes` and the verdict line (`PASS` or `FAIL: <rule ids>`).
 */
export function formatRuleTable(
  rules: readonly BehaviourVerdict[],
  notes: readonly string[],
  verdict: 'pass' | 'fail',
  whyFailed?: string,
): string {
  const lines = ruleTableLines(rules, (v) => v.on);
  const failed = rules.filter((r) => r.status === 'fail');
  lines.push('');
  lines.push(...notes);
  lines.push(
    verdict === 'pass'
      ? 'PASS'
      : `FAIL: ${failed.map((r) => r.rule).join(', ') || (whyFailed ?? 'no rule was exercised')}`,
  );
  return `${lines.join('\n')}\n`;
}
