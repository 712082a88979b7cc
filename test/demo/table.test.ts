import { describe, expect, it } from 'vitest';
import { formatTable, wrap, type DemoRow } from '../../demo/table.mjs';

const ID = '0af7651916cd43dd8448eb211c80319c';
const GUIDANCE =
  'Ask the user to sign in to the calendar account again from the settings page, then retry the ' +
  'same request once; if it fails a second time, tell the user the calendar is unavailable and ' +
  'offer to continue without it, without mentioning the internal account identifier.';
const rows: DemoRow[] = [
  {
    tool: 'weather_lookup',
    class: 'reliability',
    code: 'retryable_transient_error',
    attempts: 3,
    outcome: 'success',
    action: 'retried, then used the result',
    correlationId: ID,
  },
  {
    tool: 'calendar_events',
    class: 'governance',
    code: 'auth_required',
    attempts: 1,
    outcome: 'failure',
    action: 'error: connect ECONNREFUSED 127.0.0.1:4318 while reading the calendar of the user',
    agentGuidance: GUIDANCE,
    correlationId: ID,
  },
];

describe('wrap', () => {
  it('breaks at spaces within the width, and inside a word longer than the width', () => {
    expect(wrap('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrap('short', 10)).toEqual(['short']);
  });
});

describe('the demo table', () => {
  const lines = formatTable(rows, { width: 120, serverSpan: (r) => r.tool === 'weather_lookup' });

  it('fits 120 columns, long guidance and agent text included', () => {
    expect(lines.filter((l) => l.length > 120)).toEqual([]);
    expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);
  });

  it('keeps every column: the wrapped text reads back in full', () => {
    const text = lines.join(' ').replace(/\s+/g, ' ');
    expect(text).toContain(GUIDANCE);
    expect(text).toContain(rows[1]!.action);
    expect(lines[0]).toMatch(/^tool\s+class\s+code\s+attempts\s+outcome\s+agent$/);
    expect(lines[2]).toMatch(
      /^weather_lookup\s+reliability\s+retryable_transient_error\s+3\s+success\s+retried/,
    );
    expect(lines[3]).toMatch(new RegExp(`^ +correlationId ${ID} {2}server span: match$`));
    expect(lines).toContainEqual(
      expect.stringMatching(/correlationId \w+ {2}server span: MISSING$/),
    );
  });

  it('leaves the server span out when nothing was checked', () => {
    const unchecked = formatTable(rows);
    expect(unchecked.join('\n')).not.toContain('server span');
    expect(unchecked[3]).toMatch(new RegExp(`^ +correlationId ${ID}$`));
  });
});
