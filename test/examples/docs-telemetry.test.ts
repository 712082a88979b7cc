import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as semconv from '../../src/semconv.js';

const doc = readFileSync(new URL('../../docs/telemetry.md', import.meta.url), 'utf8');

/** The first backticked name of each row of the table under `heading`. */
function namesUnder(heading: string): string[] {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const rest = doc.slice(start + heading.length + 2);
  const end = rest.search(/\n## /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => /^\| `([^`]+)`/.exec(l)?.[1] ?? '');
}

const strings = Object.entries(semconv).filter(([, v]) => typeof v === 'string') as Array<
  [string, string]
>;
const named = (prefix: string): string[] =>
  strings.filter(([k]) => k.startsWith(prefix)).map(([, v]) => v);

/** Every backticked token of the doc that looks like a telemetry name of ours or the conventions'. */
function dottedNamesInDoc(): string[] {
  const tokens = [...doc.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return tokens.filter((t) => /^(mcp|gen_ai|jsonrpc|rpc|error|network|server)\.[a-z_.]+$/.test(t));
}

describe('docs/telemetry.md matches src/semconv.ts', () => {
  it('lists every span attribute the code names, and no other', () => {
    expect(namesUnder('## Span attributes').sort()).toEqual(named('ATTR_').sort());
  });

  it('lists every metric the code names, and no other', () => {
    expect(namesUnder('## Metrics').sort()).toEqual(named('METRIC_MCP_').sort());
  });

  it('lists every span event the code names', () => {
    for (const event of named('EVENT_')) expect(namesUnder('## Span events')).toContain(event);
  });

  it('mentions every other constant value and enumeration', () => {
    for (const value of [
      semconv.ERROR_TYPE_VALUE_TOOL_ERROR,
      semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      semconv.METRIC_CODE_OTHER,
      ...semconv.TOOL_CALL_OUTCOMES,
    ]) {
      expect(doc).toContain(`\`${value}\``);
    }
    expect(doc).toContain(`\`[${semconv.DURATION_BUCKETS_SECONDS.join(', ')}]\``);
  });

  it('keeps our own attributes under mcp.tool.failure.* and mcp.tool.call.*', () => {
    const ours = named('ATTR_').filter(
      (n) =>
        !/^(mcp\.(method|session|protocol|resource)|gen_ai\.|jsonrpc\.|rpc\.|error\.|network\.|server\.)/.test(
          n,
        ),
    );
    expect(ours.length).toBeGreaterThan(0);
    for (const name of ours) expect(name).toMatch(/^mcp\.tool\.(failure|call)\./);
  });

  it('names nothing that src/semconv.ts does not define', () => {
    const known = new Set(strings.map(([, v]) => v));
    const unknown = dottedNamesInDoc().filter((n) => !known.has(n));
    expect(unknown).toEqual([]);
  });
});
