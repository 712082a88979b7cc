/** What the three `mcp-failures check` commands share: exit codes, error lines, the JSON report. */
import { firstLineOf } from '../shared/first-line.js';

/** Exit codes of every check: 0 each exercised rule passed, 1 a rule failed, 2 usage or connection. */
export const CHECK_EXIT = Object.freeze({ pass: 0, fail: 1, error: 2 });

/**
 * Writes `json` to `path` as the check's report; on failure says so in one line and resolves
 * to false (the check then exits `CHECK_EXIT.error`, after its table).
 */
export async function writeReport(
  io: { writeFile(path: string, text: string): Promise<void>; stderr(text: string): void },
  path: string,
  json: unknown,
): Promise<boolean> {
  try {
    await io.writeFile(path, `${JSON.stringify(json, null, 2)}\n`);
    return true;
  } catch (error) {
    io.stderr(`mcp-failures: cannot write the report ${path}: ${firstLineOf(error)}\n`);
    return false;
  }
}
