// The demo's table, laid out to fit a terminal: one row per logical call (tool, class, code,
// attempts, outcome, what the agent did), and under it the correlationId and the agentGuidance
// in full, wrapped rather than cut, so nothing is lost to the width.

const GAP = '  ';
const LABEL = 13; // 'correlationId' and 'agentGuidance' have the same length.

/** Splits text into lines of at most `width` characters, at spaces where it can. */
export function wrap(text, width) {
  const lines = [];
  let rest = text;
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    const cut = space > 0 ? space : width;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  lines.push(rest);
  return lines;
}

/**
 * The table's lines, none longer than `width` (as long as the fixed columns fit). `serverSpan`
 * says, per row, whether the server span of its correlationId was found (`undefined`: not checked).
 */
export function formatTable(rows, { width = 120, serverSpan = () => undefined } = {}) {
  const header = ['tool', 'class', 'code', 'attempts', 'outcome', 'agent'];
  const cells = rows.map((r) => [
    r.tool,
    r.class ?? '-',
    r.code ?? '-',
    String(r.attempts),
    r.outcome,
    r.action,
  ]);
  const fixed = header
    .slice(0, -1)
    .map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  const lastStart = fixed.reduce((sum, w) => sum + w + GAP.length, 0);
  const lastWidth = Math.max(
    header.at(-1).length,
    Math.min(width - lastStart, Math.max(...cells.map((row) => row.at(-1).length))),
  );
  const blank = (n) => ' '.repeat(n);
  const line = (row) =>
    row
      .map((c, i) => (i < fixed.length ? c.padEnd(fixed[i]) : c))
      .join(GAP)
      .trimEnd();
  const detailStart = fixed[0] + GAP.length;
  const detail = (label, text) =>
    wrap(text, width - detailStart - LABEL - 1).map(
      (part, i) => `${blank(detailStart)}${i === 0 ? label : blank(LABEL)} ${part}`,
    );

  const lines = [line(header), line([...fixed, lastWidth].map((w) => '-'.repeat(w)))];
  rows.forEach((r, index) => {
    const [first = '', ...more] = wrap(cells[index].at(-1), lastWidth);
    lines.push(line([...cells[index].slice(0, -1), first]));
    for (const part of more) lines.push(`${blank(lastStart)}${part}`);
    const found = r.correlationId === undefined ? undefined : serverSpan(r);
    const span = found === undefined ? '' : `${GAP}server span: ${found ? 'match' : 'MISSING'}`;
    lines.push(...detail('correlationId', `${r.correlationId ?? '-'}${span}`));
    if (r.agentGuidance !== undefined) lines.push(...detail('agentGuidance', r.agentGuidance));
  });
  return lines;
}
