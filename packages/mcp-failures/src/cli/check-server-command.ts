/**
 * `mcp-failures check server`: connects to an MCP server, makes the calls of a scenario, and
 * judges every failure object that comes back (`checkServerOutcomes`, pure). I/O comes in
 * through `CheckServerIo` so tests can run the command in-process. Exit codes: 0 every exercised
 * rule passed, 1 a rule failed or the extension is not implemented, 2 usage or connection error
 * (always one line on stderr, never a stack trace).
 */
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
import {
  CheckUsageError as UsageError,
  runCheckCommand,
  stringOption,
  stringsOption,
  endCheck,
  type CheckArgs,
  type CheckCommand,
} from './check-common.js';
import { firstLineOf } from '@omcp/tool-failure/wire';
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

interface Options {
  target: CheckTarget;
  scenario: string | undefined;
  calls: PlannedCall[];
  report: string | undefined;
  timeoutMs: number;
}

const COMMAND: CheckCommand = {
  what: 'server',
  usage: CHECK_SERVER_USAGE,
  options: ['url', 'scenario', 'report'],
  repeatable: ['call'],
  defaultTimeoutMs: 10_000,
  oneLine: [ScenarioError, CheckConnectionError],
};

function optionsOf({ values, command, dashed, timeoutMs }: CheckArgs): Options {
  const url = stringOption(values, 'url');
  let target: CheckTarget;
  if (url !== undefined) {
    if (dashed) throw new UsageError('give either --url or a command after --, not both');
    if (!isHttpUrl(url)) throw new UsageError(`--url must be an http(s) URL, got '${url}'`);
    target = { kind: 'http', url };
  } else {
    const [program, ...args] = command;
    if (program === undefined || program === '')
      throw new UsageError('give the server: -- COMMAND [ARGS...] or --url URL');
    target = { kind: 'stdio', command: program, args };
  }
  let calls: PlannedCall[];
  try {
    calls = stringsOption(values, 'call').map(parseCallOption);
  } catch (error) {
    throw new UsageError(firstLineOf(error));
  }
  const scenario = stringOption(values, 'scenario');
  if (scenario === undefined && calls.length === 0)
    throw new UsageError('give the calls to make: --scenario FILE or --call TOOL[=JSON]');
  return { target, scenario, calls, report: stringOption(values, 'report'), timeoutMs };
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
export function runCheckServer(argv: readonly string[], io: CheckServerIo): Promise<number> {
  return runCheckCommand(COMMAND, argv, io, (args) => checkServer(optionsOf(args), io));
}

async function checkServer(options: Options, io: CheckServerIo): Promise<number> {
  let session: CheckSession | undefined;
  try {
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
    return await endCheck(
      io,
      options.report,
      () => ({ target: options.target, tools, unlisted, ...report, outcomes }),
      report.verdict,
    );
  } finally {
    await session?.close();
  }
}
