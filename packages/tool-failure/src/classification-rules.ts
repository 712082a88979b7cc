import { readFileSync } from 'node:fs';
import { safeGet } from './wire/safe.js';
import { isToolFailureClass } from './constants.js';
import type { ErrorClassification, ToolFailureClass } from './types.js';

/**
 * A classification rule written as data, for servers whose code the operator does not own: what
 * to match on a thrown error (every field given must match; `message` is a regular expression),
 * and the classification it yields.
 */
export interface ClassificationRule {
  match: { name?: string; code?: string | number; message?: string; tool?: string };
  class: ToolFailureClass;
  code: string;
  retryable?: boolean;
  agentGuidance?: string;
}

/** Rules checked and ready: the first rule that matches classifies. */
export interface ClassificationRules {
  readonly size: number;
  /** The classification of `error` thrown by `tool`, or undefined when no rule matches. */
  classify(error: unknown, tool: string | undefined): ErrorClassification | undefined;
}

interface Compiled {
  name: string | undefined;
  code: string | number | undefined;
  message: RegExp | undefined;
  tool: string | undefined;
  result: ErrorClassification;
}

const MATCH_KEYS = new Set(['name', 'code', 'message', 'tool']);
const RULE_KEYS = new Set(['match', 'class', 'code', 'retryable', 'agentGuidance']);

/**
 * Checks rules given as data (a parsed JSON file's `{ "rules": [...] }`, or the array itself):
 * each bad rule is left out with one line in `problems` saying which and why; the others apply.
 */
export function compileClassificationRules(
  input: unknown,
  source = 'classification rules',
): { rules: ClassificationRules; problems: string[] } {
  const problems: string[] = [];
  const list: unknown = Array.isArray(input) ? input : safeGet(input, 'rules');
  const compiled: Compiled[] = [];
  if (!Array.isArray(list)) {
    problems.push(`${source}: expected an array of rules or { "rules": [...] }`);
  } else {
    list.forEach((raw: unknown, i) => {
      const problem = (why: string): void => {
        problems.push(`${source}: rule ${i + 1} ${why}; left out`);
      };
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        return problem('is not an object');
      const rule = raw as Record<string, unknown>;
      const unknownKey = Object.keys(rule).find((k) => !RULE_KEYS.has(k));
      if (unknownKey !== undefined) return problem(`has an unknown key "${unknownKey}"`);
      const match = rule.match;
      if (typeof match !== 'object' || match === null || Array.isArray(match))
        return problem('needs "match": { name, code, message, tool }');
      const m = match as Record<string, unknown>;
      const badKey = Object.keys(m).find((k) => !MATCH_KEYS.has(k));
      if (badKey !== undefined) return problem(`matches on an unknown key "${badKey}"`);
      if (Object.keys(m).length === 0)
        return problem('matches nothing (give name, code, message or tool)');
      for (const key of ['name', 'tool'] as const)
        if (m[key] !== undefined && (typeof m[key] !== 'string' || m[key] === ''))
          return problem(`match.${key} must be a non-empty string`);
      if (m.code !== undefined && typeof m.code !== 'string' && typeof m.code !== 'number')
        return problem('match.code must be a string or a number');
      let message: RegExp | undefined;
      if (m.message !== undefined) {
        if (typeof m.message !== 'string') return problem('match.message must be a string');
        try {
          message = new RegExp(m.message);
        } catch (error) {
          return problem(
            `match.message is not a valid regular expression (${(error as Error).message})`,
          );
        }
      }
      if (!isToolFailureClass(rule.class))
        return problem('class must be "capability", "reliability" or "governance"');
      if (typeof rule.code !== 'string' || rule.code === '')
        return problem('code must be a non-empty string');
      if (rule.retryable !== undefined && typeof rule.retryable !== 'boolean')
        return problem('retryable must be true or false');
      if (rule.agentGuidance !== undefined && typeof rule.agentGuidance !== 'string')
        return problem('agentGuidance must be a string');
      const result: ErrorClassification = { class: rule.class, code: rule.code };
      if (rule.retryable !== undefined) result.retryable = rule.retryable;
      if (rule.agentGuidance !== undefined) result.agentGuidance = rule.agentGuidance;
      compiled.push({
        name: m.name as string | undefined,
        code: m.code as string | number | undefined,
        message,
        tool: m.tool as string | undefined,
        result,
      });
    });
  }
  return { rules: rulesOf(compiled), problems };
}

/** Reads and checks a rules file (JSON); an unreadable file is one problem and no rules. */
export function loadClassificationRules(path: string): {
  rules: ClassificationRules;
  problems: string[];
} {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const why =
      error instanceof SyntaxError
        ? `is not JSON (${error.message})`
        : `cannot be read (${(error as Error).message})`;
    return {
      rules: rulesOf([]),
      problems: [`classification rules ${path} ${why}; no rules apply`],
    };
  }
  return compileClassificationRules(parsed, `classification rules ${path}`);
}

function rulesOf(compiled: readonly Compiled[]): ClassificationRules {
  return {
    size: compiled.length,
    classify(error, tool) {
      if (compiled.length === 0) return undefined;
      // The error and its causes (as the built-in rules follow them), up to 5 levels.
      const chain: unknown[] = [];
      for (
        let e: unknown = error;
        typeof e === 'object' && e !== null && chain.length < 6;
        e = safeGet(e, 'cause')
      )
        chain.push(e);
      for (const rule of compiled) {
        if (rule.tool !== undefined && rule.tool !== tool) continue;
        if (rule.name === undefined && rule.code === undefined && rule.message === undefined)
          return { ...rule.result };
        for (const e of chain) {
          if (rule.name !== undefined && safeGet(e, 'name') !== rule.name) continue;
          if (rule.code !== undefined && safeGet(e, 'code') !== rule.code) continue;
          if (rule.message !== undefined) {
            const text = safeGet(e, 'message');
            if (typeof text !== 'string' || !rule.message.test(text)) continue;
          }
          return { ...rule.result };
        }
      }
      return undefined;
    },
  };
}
