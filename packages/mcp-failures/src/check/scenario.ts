/**
 * The calls `mcp-failures check server` makes: from a scenario file
 * (`{ "calls": [{ "tool": "...", "arguments": {...} }] }`) or from `--call TOOL[=JSON]`.
 * Pure: text in, calls out, or a `ScenarioError` with one line saying what is wrong.
 */
import { isRecord } from '@omcp/tool-failure/wire';

/** One call to make. */
export interface PlannedCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/** A scenario or `--call` that cannot be used; the message is one line. */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/** Parses a scenario file's text; `source` names it in messages. */
export function parseScenario(text: string, source: string): PlannedCall[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ScenarioError(`${source}: not JSON`);
  }
  if (!isRecord(doc) || !Array.isArray(doc.calls)) {
    throw new ScenarioError(`${source}: expected {"calls": [{"tool": ..., "arguments": {...}}]}`);
  }
  return doc.calls.map((entry: unknown, i) => {
    if (!isRecord(entry) || typeof entry.tool !== 'string' || entry.tool === '') {
      throw new ScenarioError(`${source}: calls[${i}].tool must be a non-empty string`);
    }
    const args = entry.arguments ?? {};
    if (!isRecord(args)) {
      throw new ScenarioError(`${source}: calls[${i}].arguments must be an object`);
    }
    return { tool: entry.tool, arguments: args };
  });
}

/** Parses one `--call TOOL[=JSON]`; the JSON, when given, is the arguments object. */
export function parseCallOption(spec: string): PlannedCall {
  const eq = spec.indexOf('=');
  const tool = eq === -1 ? spec : spec.slice(0, eq);
  if (tool === '') throw new ScenarioError(`--call '${spec}': missing the tool name`);
  if (eq === -1) return { tool, arguments: {} };
  let args: unknown;
  try {
    args = JSON.parse(spec.slice(eq + 1));
  } catch {
    throw new ScenarioError(`--call ${tool}: the arguments are not JSON`);
  }
  if (!isRecord(args))
    throw new ScenarioError(`--call ${tool}: the arguments must be a JSON object`);
  return { tool, arguments: args };
}
