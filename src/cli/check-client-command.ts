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
import {
  NOT_BEFORE_MS,
  clientScript,
  createScriptedHandler,
  type ScriptedCall,
} from '../check/scripted.js';
import { isRecord } from '../shared/safe.js';
import {
  CheckUsageError as UsageError,
  parseCheckArgs,
  parseTimeout,
  stringOption,
} from './check-client-args.js';
import { ChildStartError, startChild, substitute } from './check-client-run.js';
import { readCallLog, startScriptedHttp, type ScriptedHttpServer } from './check-client-serve.js';
import { CHECK_EXIT, writeReport } from './check-common.js';
import { firstLineOf } from '../shared/first-line.js';

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

interface Options {
  transport: 'stdio' | 'http';
  command: string;
  args: string[];
  report: string | undefined;
  timeoutMs: number;
}

function parseOptions(argv: readonly string[]): Options | 'help' {
  const parsed = parseCheckArgs(argv, 'client', ['transport', 'report', 'timeout']);
  if (parsed.values.help === true) return 'help';
  const transport = stringOption(parsed, 'transport') ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http')
    throw new UsageError(`--transport must be stdio or http, got '${transport}'`);
  const [program, ...args] = parsed.command;
  if (program === undefined || program === '')
    throw new UsageError('give the client to run: -- COMMAND [ARGS...]');
  return {
    transport,
    command: program,
    args,
    report: stringOption(parsed, 'report'),
    timeoutMs: parseTimeout(stringOption(parsed, 'timeout'), 60_000),
  };
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
export async function runCheckClient(argv: readonly string[], io: CheckClientIo): Promise<number> {
  let http: ScriptedHttpServer | undefined;
  let dir: string | undefined;
  try {
    const options = parseOptions(argv);
    if (options === 'help') {
      io.stdout(CHECK_CLIENT_USAGE);
      return CHECK_EXIT.pass;
    }
    const runId = randomBytes(4).toString('hex');
    const tools = clientScript(runId);
    const env: Record<string, string> = { [CLIENT_ENV.transport]: options.transport };
    let calls: ScriptedCall[] = [];
    let serverCommand: string[] = [];
    let url = '';
    let log = '';
    if (options.transport === 'http') {
      http = await startScriptedHttp(createScriptedHandler(tools, (c) => calls.push(c)));
      url = http.url;
      env[CLIENT_ENV.serverUrl] = url;
    } else {
      dir = mkdtempSync(join(tmpdir(), 'mcp-check-client-'));
      log = join(dir, 'calls.jsonl');
      serverCommand = [
        ...io.self,
        'check',
        'serve-scripted',
        '--script',
        'client',
        '--run-id',
        runId,
        '--log',
        log,
      ];
      env[CLIENT_ENV.serverCommand] = JSON.stringify(serverCommand);
    }
    const args =
      options.transport === 'http'
        ? substitute(options.args, {}, { url })
        : substitute(options.args, { '{server}': serverCommand }, {});
    const child = startChild(options.command, args, env, {
      stdin: 'ignore',
      timeoutMs: options.timeoutMs,
    });
    let run;
    try {
      run = await child.ended;
    } catch (error) {
      if (error instanceof ChildStartError) {
        io.stderr(`mcp-failures: ${error.message}\n`);
        return CHECK_EXIT.error;
      }
      throw error;
    }
    if (run.timedOut) {
      const said = run.lastStderrLine === '' ? '' : ` (client stderr: ${run.lastStderrLine})`;
      io.stderr(`mcp-failures: the client did not finish within ${options.timeoutMs} ms${said}\n`);
      return CHECK_EXIT.error;
    }
    if (options.transport === 'stdio') calls = readCallLog(log);
    const printed = printedResults(run.stdoutLines);
    const report = checkClientSession(tools, calls, printed);
    const notes = [
      `${report.calls} tools/call requests for ${report.tools.length} of ${tools.length} tools; ${report.printedResults} results printed; the client exited with ${run.code === null ? `signal ${run.signal ?? '?'}` : `code ${run.code}`}`,
    ];
    if (report.notCalled.length > 0) notes.push(`not called: ${report.notCalled.join(', ')}`);
    if (report.printedResults === 0 && report.tools.length > 0)
      notes.push(
        'the client printed no {"tool", "result"} lines: TF-CLIENT-PRESERVE-FAILURE and TF-CLIENT-UNAWARE-UNCHANGED not exercised',
      );
    if (report.tools.length === 0) {
      const said = run.lastStderrLine === '' ? '' : ` (client stderr: ${run.lastStderrLine})`;
      notes.push(`the client called no tool${said}`);
    }
    io.stdout(
      `${tools.length} tools served over ${options.transport} (retryNotBefore ${NOT_BEFORE_MS} ms ahead)\n\n${report.tools.length > 0 ? `${activityLines(report)}\n` : ''}${formatRuleTable(report.rules, notes, report.verdict, 'the client called no tool')}`,
    );
    if (options.report !== undefined) {
      const json = {
        transport: options.transport,
        command: [options.command, ...args],
        exit: { code: run.code, signal: run.signal },
        ...report,
        received: calls,
        printed,
      };
      if (!(await writeReport(io, options.report, json))) return CHECK_EXIT.error;
    }
    return report.verdict === 'pass' ? CHECK_EXIT.pass : CHECK_EXIT.fail;
  } catch (error) {
    if (error instanceof UsageError)
      io.stderr(`mcp-failures: ${error.message} (mcp-failures check client --help for usage)\n`);
    else io.stderr(`mcp-failures: unexpected error: ${firstLineOf(error)}\n`);
    return CHECK_EXIT.error;
  } finally {
    await http?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
