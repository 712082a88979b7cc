import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_RULES,
  PROXY_RULES,
  RULES,
  SESSION_RULES,
  ruleById,
} from '../../src/check/rules.js';
import { TOOL_FAILURE_RULES } from '../../../tool-failure/src/rules.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');
const GROUPS = [TOOL_FAILURE_RULES, SESSION_RULES, CLIENT_RULES, PROXY_RULES];
const idsOf = (text: string): string[] => [...new Set(text.match(/"TF-[A-Z-]*[A-Z]"/g))];

describe('the rule registry', () => {
  it('holds every rule of every group once, by its id, as the same object', () => {
    const all = GROUPS.flatMap((group) => Object.values(group));
    expect(RULES.size).toBe(all.length);
    for (const rule of all) expect(ruleById(rule.id)).toBe(rule);
  });

  it('names each group by its prefix', () => {
    for (const r of Object.values(CLIENT_RULES)) expect(r.id).toMatch(/^TF-CLIENT-/);
    for (const r of Object.values(PROXY_RULES)) expect(r.id).toMatch(/^TF-PROXY-/);
    for (const r of [...Object.values(TOOL_FAILURE_RULES), ...Object.values(SESSION_RULES)])
      expect(r.id).not.toMatch(/^TF-(CLIENT|PROXY)-/);
  });

  it('knows no rule by an id it does not hold', () => {
    expect(ruleById('TF-NOPE')).toBeUndefined();
    expect(ruleById('')).toBeUndefined();
  });

  it('every rule has a keyword and a statement, and docs/conformance.md names it', () => {
    const doc = read('docs/conformance.md');
    for (const rule of RULES.values()) {
      expect(rule.statement.length).toBeGreaterThan(10);
      expect(['MUST', 'MUST NOT', 'REQUIRED', 'SHOULD', 'RECOMMENDED', 'MAY']).toContain(
        rule.level,
      );
      expect(doc).toContain(rule.id);
    }
  });

  it('every rule the client and intermediary vectors name is in the registry', () => {
    const named = [
      ...idsOf(read('packages/mcp-failures/conformance/client-scenarios.json')),
      ...idsOf(read('packages/mcp-failures/conformance/intermediary-cases.json')),
    ].map((quoted) => quoted.slice(1, -1));
    expect(named.length).toBeGreaterThan(10);
    for (const id of named) expect(ruleById(id), id).toBeDefined();
  });
});
