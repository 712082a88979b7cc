/** The rule table `mcp-failures check server` prints, from a `ServerCheckReport`. Pure. */
import type { ServerCheckReport } from './server.js';

const MAX_VIOLATIONS_SHOWN = 3;

/** The report as text: the rule table, then what failed, then the verdict. */
export function formatServerCheck(report: ServerCheckReport): string {
  const width = Math.max(...report.rules.map((r) => r.rule.length), 'rule'.length);
  const lines: string[] = [`${'rule'.padEnd(width)}  result`];
  for (const r of report.rules) {
    const count = r.status === 'not exercised' ? '' : ` (${r.checked} checked)`;
    lines.push(`${r.rule.padEnd(width)}  ${r.status}${count}`);
  }
  const failed = report.rules.filter((r) => r.status === 'fail');
  if (failed.length > 0) lines.push('');
  for (const r of failed) {
    for (const v of r.violations.slice(0, MAX_VIOLATIONS_SHOWN)) {
      lines.push(`${r.rule}: call ${v.call} (${v.tool}): ${v.message}`);
    }
    const more = r.violations.length - MAX_VIOLATIONS_SHOWN;
    if (more > 0) lines.push(`${r.rule}: and ${more} more`);
  }
  lines.push('');
  lines.push(
    `${report.calls} calls: ${report.errorResults} error results, ${report.failureObjects} failure objects, ${report.rpcErrors} JSON-RPC errors, ${report.unanswered} unanswered`,
  );
  if (!report.extensionImplemented) {
    lines.push(
      `the extension is not implemented: ${report.bareErrorResults} error results carried no failure object`,
    );
  } else if (report.failureObjects === 0 && report.rpcErrors === 0) {
    lines.push(
      'no call failed: no rule was exercised (call tools that fail, e.g. with invalid arguments)',
    );
  }
  lines.push(
    report.verdict === 'pass'
      ? 'PASS'
      : `FAIL: ${failed.map((r) => r.rule).join(', ') || 'extension not implemented'}`,
  );
  return `${lines.join('\n')}\n`;
}
