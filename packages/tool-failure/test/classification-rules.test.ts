import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileClassificationRules,
  loadClassificationRules,
} from '../src/classification-rules.js';
import { ROOT } from '../../../test/observability/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'omcp-rules-'));

describe('classification rules as data', () => {
  it('the first rule whose every field matches classifies; the cause chain is searched', () => {
    const { rules, problems } = compileClassificationRules([
      { match: { tool: 'a', code: 'ENOENT' }, class: 'capability', code: 'resource_not_found' },
      {
        match: { message: '^Access denied' },
        class: 'governance',
        code: 'permission_denied',
        agentGuidance: 'ask',
      },
      {
        match: { name: 'QuotaError' },
        class: 'capability',
        code: 'quota_exceeded',
        retryable: false,
      },
    ]);
    expect(problems).toEqual([]);
    const enoent = Object.assign(new Error('x'), { code: 'ENOENT' });
    expect(rules.classify(enoent, 'a')).toEqual({
      class: 'capability',
      code: 'resource_not_found',
    });
    expect(rules.classify(enoent, 'b')).toBeUndefined();
    expect(
      rules.classify(new Error('Access denied - path outside allowed directories'), 'b'),
    ).toEqual({
      class: 'governance',
      code: 'permission_denied',
      agentGuidance: 'ask',
    });
    const wrapped = new Error('outer', {
      cause: Object.assign(new Error('q'), { name: 'QuotaError' }),
    });
    expect(rules.classify(wrapped, undefined)).toEqual({
      class: 'capability',
      code: 'quota_exceeded',
      retryable: false,
    });
    expect(rules.classify('not an error', 'a')).toBeUndefined();
  });

  it('each bad rule is one line and is left out; the good ones still apply', () => {
    const { rules, problems } = compileClassificationRules(
      {
        rules: [
          { match: {}, class: 'capability', code: 'x' },
          { match: { message: '(' }, class: 'capability', code: 'x' },
          { match: { code: 'E' }, class: 'nope', code: 'x' },
          { match: { code: 'E' }, class: 'capability', code: '' },
          { match: { code: 'E' }, class: 'capability', code: 'x', retryable: 'yes' },
          { match: { colour: 'red' }, class: 'capability', code: 'x' },
          { match: { code: 'E' }, class: 'capability', code: 'x', extra: 1 },
          'rule',
          { match: { code: 'E' }, class: 'capability', code: 'ok' },
        ],
      },
      'rules.json',
    );
    expect(problems).toHaveLength(8);
    for (const [i, p] of problems.entries()) {
      expect(p).toMatch(new RegExp(`^rules\\.json: rule ${i + 1} .+; left out$`));
      expect(p).not.toContain('\n');
    }
    expect(rules.size).toBe(1);
    expect(rules.classify(Object.assign(new Error(), { code: 'E' }), 't')?.code).toBe('ok');
  });

  it('a file that is missing or not JSON is one line, never a throw', () => {
    const missing = loadClassificationRules(join(dir, 'missing.json'));
    expect(missing.problems).toHaveLength(1);
    expect(missing.problems[0]).toMatch(/cannot be read/);
    writeFileSync(join(dir, 'bad.json'), '{ rules: ');
    const bad = loadClassificationRules(join(dir, 'bad.json'));
    expect(bad.problems[0]).toMatch(/is not JSON/);
    expect(bad.rules.size).toBe(0);
    expect(compileClassificationRules(42).problems).toHaveLength(1);
  });

  it('the shipped example for server-filesystem checks clean and classifies its errors', () => {
    const { rules, problems } = loadClassificationRules(
      join(ROOT, 'examples', 'classification-rules', 'server-filesystem.json'),
    );
    expect(problems).toEqual([]);
    expect(
      rules.classify(
        new Error('Access denied - path outside allowed directories: /etc/x not in /tmp'),
        'read_text_file',
      )?.code,
    ).toBe('permission_denied');
  });
});
