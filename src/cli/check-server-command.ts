/**
 * `mcp-failures check server`: connects to an MCP server, makes the calls of a scenario, and
 * judges every failure object that comes back (`checkServerOutcomes`, pure). I/O comes in
 * through `CheckServerIo` so tests can run the command in-process. Exit codes: 0 every exercised
 * rule passed, 1 a rule failed or the extension is not implemented, 2 usage or connection error
 * (always one line on stderr, never a stack trace).
 */
import { parseArgs } from 'node:util';
import { formatServerCheck } from '../check/format.js';
import {
  ScenarioError,
  parseCallOption,
  parseScenario,
  type PlannedCall,
} from '../check/scenario.js';
import { checkServerOutcomes, type CallOutcome } from '../check/server.js';
import {
  CheckConnectionError,
  type CheckSession,
  type CheckTarget,
} from './check-server-session.js';
import { isHttpUrl } from './url.js';
import { CHECK_EXIT, writeReport } from './check-common.js';
import { firstLineOf } from '../shared/first-line.js';
import { splitAtDashes } from '../shared/argv.js';
export { CHECK_EXIT } from './check-common.js';

/** Everything the command does to the outside world. */
export interface CheckServerIo {
  readFile(path: string): Promise<string>;
  writeFile(path: string, text: string): Promise<void>;
  connect(target: CheckTarget, timeoutMs: number): Promise<CheckSession>;
  stdout(text: string): void;
  stderr(text: string): void;
}

export const CHECK_SERVER_USAGE = `Usage: mcp-failures check server [options] -- COMMAND [ARGS...]
       mcp-failures check server [options] --url URL

Connects to an MCP server (a stdio command, or a Streamable HTTP URL), lists its tools, makes
the given tools/call requests and checks every failure object that comes back against the rules
of the tool-failure extension (_meta["io.modelcontextprotocol/toolFailure"]). Prints a table of
rule -> pass / fail / not exercised.

Calls (at least one):
  --scenario FILE     JSON: {"calls": [{"tool": "name", "arguments": {...}}]}
  --call TOOL[=JSON]  One call, arguments as a JSON object (default {}); repeatable

Options:
  --url URL           Streamable HTTP endpoint, instead of a command after --
  --report FILE       Also write the report as JSON to FILE
  --timeout MS        Time for the connection and for each request (default 10000)
  -h, --help          Show this help

Make calls that fail (invalid arguments, an unknown tool, a tool that refuses): only failures
exercise the rules. Exit status: 0 every exercised rule passed, 1 a rule failed or the extension
is not implemented, 2 usage or connection error.
`;

class UsageError extends Error {}

interface Options {
  target: CheckTarget;
  scenario: string | undefined;
  calls: PlannedCall[];
  report: string | undefined;
  timeoutMs: number;
}

function parseOptions(argv: readonly string[]): Options | 'help' {
  const { own, command, dashed } = splitAtDashes(argv);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...own],
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        scenario: { type: 'string' },
        call: { type: 'string', multiple: true },
        report: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(firstLineOf(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  const [check, what, ...extra] = positionals;
  if (check !== 'check') throw new UsageError(`unknown command '${check ?? ''}'`);
  if (what === undefined) throw new UsageError('missing what to check: server, client or proxy');
  if (what !== 'server')
    throw new UsageError(`unknown check '${what}': expected server, client or proxy`);
  if (extra.length > 0)
    throw new UsageError(`unexpected argument '${extra[0]}' (the server command goes after --)`);
  let target: CheckTarget;
  if (values.url !== undefined) {
    if (dashed) throw new UsageError('give either --url or a command after --, not both');
    if (!isHttpUrl(values.url))
      throw new UsageError(`--url must be an http(s) URL, got '${values.url}'`);
    target = { kind: 'http', url: values.url };
  } else {
    const [program, ...args] = command;
    if (program === undefined || program === '')
      throw new UsageError('give the server: -- COMMAND [ARGS...] or --url URL');
    target = { kind: 'stdio', command: program, args };
  }
  let calls: PlannedCall[];
  try {
    calls = (values.call ?? []).map(parseCallOption);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.scenario === undefined && calls.length === 0)
    throw new UsageError('give the calls to make: --scenario FILE or --call TOOL[=JSON]');
  const timeoutMs = values.timeout === undefined ? 10_000 : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > 600_000)
    throw new UsageError(
      `--timeout must be a whole number of milliseconds from 1 to 600000, got '${values.timeout}'`,
    );
  return { target, scenario: values.scenario, calls, report: values.report, timeoutMs };
}

async function plannedCalls(io: CheckServerIo, options: Options): Promise<PlannedCall[]> {
  if (options.scenario === undefined) return options.calls;
  let text: string;
  try {
    text = await io.readFile(options.scenario);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ScenarioError(
      `cannot read ${options.scenario}: ${code === 'ENOENT' ? 'no such file' : firstLineOf(error)}`,
    );
  }
  return [...parseScenario(text, options.scenario), ...options.calls];
}

/** Runs `mcp-failures check server ...` (argv from `check` on); resolves with the exit code. */
export async function runCheckServer(argv: readonly string[], io: CheckServerIo): Promise<number> {
  let session: CheckSession | undefined;
  try {
    const options = parseOptions(argv);
    if (options === 'help') {
      io.stdout(CHECK_SERVER_USAGE);
      return CHECK_EXIT.pass;
    }
    const calls = await plannedCalls(io, options);
    if (calls.length === 0)
      throw new ScenarioError(`${options.scenario ?? 'the scenario'}: no calls`);
    session = await io.connect(options.target, options.timeoutMs);
    const tools = await session.listTools();
    const outcomes: CallOutcome[] = [];
    for (const call of calls) {
      const answer = await session.callTool(call.tool, call.arguments);
      outcomes.push({ tool: call.tool, arguments: call.arguments, answer });
    }
    await session.close();
    const declaration = await session.declaration?.();
    session = undefined;
    const report = checkServerOutcomes(outcomes, declaration);
    const unlisted = [...new Set(calls.map((c) => c.tool))].filter((t) => !tools.includes(t));
    let text = `${tools.length} tools listed\n`;
    if (unlisted.length > 0)
      text += `called tools the server does not list: ${unlisted.join(', ')}\n`;
    io.stdout(`${text}\n${formatServerCheck(report)}`);
    if (options.report !== undefined) {
      const json = { target: options.target, tools, unlisted, ...report, outcomes };
      if (!(await writeReport(io, options.report, json))) return CHECK_EXIT.error;
    }
    return report.verdict === 'pass' ? CHECK_EXIT.pass : CHECK_EXIT.fail;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`mcp-failures: ${error.message} (mcp-failures check server --help for usage)\n`);
    } else if (error instanceof ScenarioError || error instanceof CheckConnectionError) {
      io.stderr(`mcp-failures: ${error.message}\n`);
    } else {
      io.stderr(`mcp-failures: unexpected error: ${firstLineOf(error)}\n`);
    }
    return CHECK_EXIT.error;
  } finally {
    await session?.close();
  }
}
