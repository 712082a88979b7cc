import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as semconv from '../../src/semconv.js';
import { DEFAULT_BACKOFF, DEFAULT_RETRY_LIMITS } from '../../src/retry/index.js';

const doc = readFileSync(new URL('../../docs/retry.md', import.meta.url), 'utf8');

describe('docs/retry.md', () => {
  it('names every mcp.tool.call.* attribute, event and metric, and every outcome', () => {
    const names = (Object.values(semconv) as unknown[]).filter(
      (v): v is string => typeof v === 'string' && v.startsWith('mcp.tool.call.'),
    );
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect(doc, name).toContain(`\`${name}\``);
    for (const outcome of semconv.TOOL_CALL_OUTCOMES)
      expect(doc, outcome).toContain(`\`${outcome}\``);
  });

  it('states the defaults the code uses', () => {
    expect(doc).toContain(`| \`maxAttempts\` | \`${DEFAULT_RETRY_LIMITS.maxAttempts}\` |`);
    expect(doc).toContain(`| \`maxElapsedMs\` | \`${DEFAULT_RETRY_LIMITS.maxElapsedMs}\` |`);
    const { initialDelayMs, maxDelayMs, multiplier, jitter } = DEFAULT_BACKOFF;
    expect(doc).toContain(
      `{ initialDelayMs: ${initialDelayMs}, maxDelayMs: ${maxDelayMs}, multiplier: ${multiplier}, jitter: '${jitter}' }`,
    );
  });
});
