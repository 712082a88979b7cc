/** The rule table `mcp-failures check server` prints, from a `ServerCheckReport`. Pure. */
import { ruleTableLines } from './rule-table.js';
import type { ServerCheckReport } from './server.js';

/** The report as text: the rule table, then what failed, then the verdict. */
export function formatServerCheck(report: ServerCheckReport): string {
  const lines = ruleTableLines(report.rules, (v) => `call ${v.call} (${v.tool})`);
  const failed = report.rules.filter((r) => r.status === 'fail');
  lines.push('');
  lines.push(
    `${report.calls} calls: ${report.errorResults} error results, ${report.failureObjects} failure objects, ${report.rpcErrors} JSON-RPC errors, ${report.unanswered} unanswered`,
  );
  const { status, looked, notes } = report.declaration;
  const where = looked.length === 0 ? '' : ` (looked at ${looked.join(', ')})`;
  lines.push(`extension: ${status}${where}`);
  for (const note of notes) lines.push(`  ${note}`);
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
