import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as semconv from '../../src/semconv.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** Rows of the markdown table under `heading`: the first backticked name of each row. */
function namesUnder(heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(/\n#{2,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => /^\| `([^`]+)`/.exec(l)?.[1] ?? '');
}

const constants = Object.entries(semconv).filter(([, v]) => typeof v === 'string') as Array<
  [string, string]
>;
const attributeNames = constants.filter(([k]) => k.startsWith('ATTR_')).map(([, v]) => v);
const metricNames = constants.filter(([k]) => k.startsWith('METRIC_MCP_')).map(([, v]) => v);

describe('README telemetry tables match src/semconv.ts', () => {
  it('lists every span attribute the code names, and no other', () => {
    expect(namesUnder('### Span attributes').sort()).toEqual([...attributeNames].sort());
  });

  it('lists every metric the code names, and no other', () => {
    expect(namesUnder('### Metrics').sort()).toEqual([...metricNames].sort());
  });

  it('keeps our own attributes under mcp.tool.failure.* and mcp.tool.call.*', () => {
    const ours = attributeNames.filter(
      (n) =>
        !/^(mcp\.(method|session|protocol|resource)|gen_ai\.|jsonrpc\.|rpc\.|error\.|network\.|server\.)/.test(
          n,
        ),
    );
    for (const name of ours) expect(name).toMatch(/^mcp\.tool\.(failure|call)\./);
  });
});
