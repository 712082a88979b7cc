/**
 * `mcp-failures check client [--transport stdio|http] -- COMMAND [ARGS...]`: serves the scripted
 * MCP server (src/check/scripted.ts) to a client under test, in any language, runs it, and judges
 * what it did (`checkClientSession`, pure): how many times it called each tool and when, and what
 * it printed as each call's final result. Exit codes: 0 every exercised rule passed, 1 a rule
 * failed (or the client called no tool), 2 usage error, or the client could not start or did not
 * finish in time (one line on stderr).
 *
 * The contract with the client (docs/conformance-kit.md):
 * - stdio: start the server command given in MCP_CHECK_SERVER_COMMAND (a JSON array: program,
 *   then arguments; an argument `{server}` of COMMAND is replaced by those words) and speak MCP
 *   over its stdin/stdout.
 * - http: connect to the Streamable HTTP endpoint in MCP_CHECK_SERVER_URL (also `{url}` in ARGS).
 * - list the tools, call each listed tool once with `{}` as a logical call (retrying as the
 *   client's own policy says), print each final result as one line of JSON on stdout,
 *   `{"tool": NAME, "result": CALL_TOOL_RESULT}`, then exit.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkClientSession, type ClientCheckReport, type PrintedResult } from '../check/client.js';
import { formatRuleTable } from '../check/rule-table.js';
import { CLIENT_RULES } from '../check/rules.js';
import {
  NOT_BEFORE_MS,
  clientScript,
  createScriptedHandler,
  type ScriptedCall,
  type ScriptedTool,
} from '../check/scripted.js';
import { isRecord } from '@omcp/tool-failure/wire';
import { ChildStartError, startChild, substitute, type ChildRun } from './check-client-run.js';
import { readCallLog } from './check-client-serve.js';
import { startLoopbackHttp } from './wire-server.js';
import {
  CHECK_EXIT,
  CheckUsageError as UsageError,
  runCheckCommand,
  stringOption,
  endCheck,
  programUnderTest,
  type ProgramUnderTest,
  type CheckArgs,
  type CheckCommand,
} from './check-common.js';

/** What the command needs from the outside world besides child processes. */
export interface CheckClientIo {
  /** The command line that runs `mcp-failures` itself (node and the script). */
  self: readonly string[];
  writeFile(path: string, text: string): Promise<void>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The environment variables a client under test reads. */
export const CLIENT_ENV = Object.freeze({
  serverCommand: 'MCP_CHECK_SERVER_COMMAND',
  serverUrl: 'MCP_CHECK_SERVER_URL',
  transport: 'MCP_CHECK_TRANSPORT',
});

export const CHECK_CLIENT_USAGE = `Usage: mcp-failures check client [options] -- COMMAND [ARGS...]

Serves a scripted MCP server whose tools fail in every shape of the tool-failure extension
(capability, governance, reliability without retryable, retryable on a non-idempotent tool,
retryable with retryNotBefore, malformed failure objects), runs COMMAND (the client under
test, in any language), counts the attempts at each tool and their times, and reports each
client rule: no retry where forbidden, none before retryNotBefore, the failure handed to the
caller unchanged.

The client must:
  stdio  start the server in $${CLIENT_ENV.serverCommand} (JSON array: program, arguments;
         an argument {server} is replaced by those words) and speak MCP on its stdio
  http   connect to $${CLIENT_ENV.serverUrl} (also {url} in ARGS)
  then list the tools, call each one once with {} (retrying as its policy says), print each
  final result as one JSON line {"tool": NAME, "result": RESULT} on stdout, and exit.

Options:
  --transport T   stdio (default) or http (Streamable HTTP on 127.0.0.1)
  --report FILE   Also write the report as JSON to FILE
  --timeout MS    Longest run of the client (default 60000)
  -h, --help      Show this help

Exit status: 0 every exercised rule passed, 1 a rule failed or no tool was called, 2 usage
error, or the client could not start or did not finish in time.
`;

interface Options extends ProgramUnderTest {
  transport: 'stdio' | 'http';
}

const COMMAND: CheckCommand = {
  what: 'client',
  usage: CHECK_CLIENT_USAGE,
  options: ['transport', 'report'],
  defaultTimeoutMs: 60_000,
  oneLine: [ChildStartError],
};

function optionsOf(parsed: CheckArgs): Options {
  const transport = stringOption(parsed.values, 'transport') ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http')
    throw new UsageError(`--transport must be stdio or http, got '${transport}'`);
  return { transport, ...programUnderTest(parsed, 'client', 'COMMAND') };
}

/** The result lines of a client's stdout; other lines (its own logging) are ignored. */
export function printedResults(lines: readonly string[]): PrintedResult[] {
  const out: PrintedResult[] = [];
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isRecord(value) && typeof value.tool === 'string' && Object.hasOwn(value, 'result'))
      out.push({ tool: value.tool, result: value.result });
  }
  return out;
}

function activityLines(report: ClientCheckReport): string {
  const width = Math.max(...report.tools.map((t) => t.tool.length), 'tool'.length);
  const lines = [`${'tool'.padEnd(width)}  attempts  after the first (ms)  printed`];
  for (const t of report.tools)
    lines.push(
      `${t.tool.padEnd(width)}  ${String(t.attempts).padEnd(8)}  ${(t.offsetsMs.map((ms) => `+${ms}`).join(' ') || '-').padEnd(20)}  ${t.printed ? 'yes' : 'no'}`,
    );
  return `${lines.join('\n')}\n`;
}

/** Runs `mcp-failures check client ...` (argv from `check` on); resolves with the exit code. */
export function runCheckClient(argv: readonly string[], io: CheckClientIo): Promise<number> {
  return runCheckCommand(COMMAND, argv, io, (args) => checkClient(optionsOf(args), io));
}

/** The scripted server as the client under test finds it, and the calls it received. */
interface ServedScript {
  env: Record<string, string>;
  args: string[];
  calls(): ScriptedCall[];
  close(): Promise<void>;
}

/**
 * Serves `tools` for the client: on HTTP in this process, or as a `serve-scripted` command the
 * client starts (its calls logged to a file in a directory of its own).
 */
async function serveScript(
  options: Options,
  self: readonly string[],
  runId: string,
  tools: readonly ScriptedTool[],
): Promise<ServedScript> {
  const env: Record<string, string> = { [CLIENT_ENV.transport]: options.transport };
  if (options.transport === 'http') {
    const calls: ScriptedCall[] = [];
    const http = await startLoopbackHttp(createScriptedHandler(tools, (c) => calls.push(c)));
    env[CLIENT_ENV.serverUrl] = http.url;
    return {
      env,
      args: substitute(options.args, {}, { url: http.url }),
      calls: () => calls,
      close: () => http.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mcp-check-client-'));
  const log = join(dir, 'calls.jsonl');
  const serverCommand = [
    ...self,
    ...['check', 'serve-scripted', '--script', 'client', '--run-id', runId, '--log', log],
  ];
  env[CLIENT_ENV.serverCommand] = JSON.stringify(serverCommand);
  return {
    env,
    args: substitute(options.args, { '{server}': serverCommand }, {}),
    calls: () => readCallLog(log),
    close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

async function checkClient(options: Options, io: CheckClientIo): Promise<number> {
  const runId = randomBytes(4).toString('hex');
  const tools = clientScript(runId);
  const served = await serveScript(options, io.self, runId, tools);
  try {
    const child = startChild(options.command, served.args, served.env, {
      stdin: 'ignore',
      timeoutMs: options.timeoutMs,
    });
    const run = await child.ended;
    if (run.timedOut) {
      const said = run.lastStderrLine === '' ? '' : ` (client stderr: ${run.lastStderrLine})`;
      io.stderr(`mcp-failures: the client did not finish within ${options.timeoutMs} ms${said}\n`);
      return CHECK_EXIT.error;
    }
    const calls = served.calls();
    const printed = printedResults(run.stdoutLines);
    const report = checkClientSession(tools, calls, printed);
    io.stdout(
      `${tools.length} tools served over ${options.transport} (retryNotBefore ${NOT_BEFORE_MS} ms ahead)\n\n${report.tools.length > 0 ? `${activityLines(report)}\n` : ''}${formatRuleTable(report.rules, notesOf(report, tools.length, run), report.verdict, 'the client called no tool')}`,
    );
    return await endCheck(
      io,
      options.report,
      () => ({
        transport: options.transport,
        command: [options.command, ...served.args],
        exit: { code: run.code, signal: run.signal },
        ...report,
        received: calls,
        printed,
      }),
      report.verdict,
    );
  } finally {
    await served.close();
  }
}

/** The lines under the table: what the client did in all, and what it left unexercised. */
function notesOf(report: ClientCheckReport, served: number, run: ChildRun): string[] {
  const notes = [
    `${report.calls} tools/call requests for ${report.tools.length} of ${served} tools; ${report.printedResults} results printed; the client exited with ${run.code === null ? `signal ${run.signal ?? '?'}` : `code ${run.code}`}`,
  ];
  if (report.notCalled.length > 0) notes.push(`not called: ${report.notCalled.join(', ')}`);
  if (report.printedResults === 0 && report.tools.length > 0)
    notes.push(
      `the client printed no {"tool", "result"} lines: ${CLIENT_RULES.PRESERVE_FAILURE.id} and ${CLIENT_RULES.UNAWARE_UNCHANGED.id} not exercised`,
    );
  if (report.tools.length === 0) {
    const said = run.lastStderrLine === '' ? '' : ` (client stderr: ${run.lastStderrLine})`;
    notes.push(`the client called no tool${said}`);
  }
  return notes;
}
