/**
 * The scripted server (src/check/scripted.ts) of `check client` and the scripted upstream of
 * `check proxy` as a process: `mcp-failures check serve-scripted`, the command a client or a
 * proxy under test starts, on the checkers' raw stdio server (wire-server.ts); its cases and the
 * log of the calls it received.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  clientScript,
  createScriptedHandler,
  proxyCases,
  proxyScript,
  type ProxyCase,
  type ScriptedCall,
  type ScriptedTool,
} from '../check/scripted.js';
import { isRecord, firstLineOf } from '@omcp/tool-failure/wire';
import { serveStdio } from './wire-server.js';

/** Usage of the helper command the checkers hand to the command under test. */
export const SERVE_SCRIPTED_USAGE = `Usage: mcp-failures check serve-scripted --script client|proxy [--run-id ID] [--vectors FILE] [--log FILE]

The scripted MCP server of check client (--script client) or the scripted upstream of check proxy
(--script proxy, cases from --vectors FILE, conformance/intermediary-cases.json) on stdio. Every
tools/call is appended to --log FILE as one JSON line. Started by check client and check proxy;
run it by hand to try a client against the script.
`;

/** The cases of `check proxy`, from conformance/intermediary-cases.json at `path`; throws if unreadable. */
export function loadProxyCases(path: string): ProxyCase[] {
  const doc: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isRecord(doc) || !Array.isArray(doc.cases))
    throw new Error(`${path} has no "cases" array (expected conformance/intermediary-cases.json)`);
  return proxyCases(doc.cases);
}

/** The script a `serve-scripted` command line names; throws a one-line Error when it cannot. */
export function scriptedToolsOf(
  script: string | undefined,
  runId: string,
  vectors: string | undefined,
): ScriptedTool[] {
  if (script === 'client') return clientScript(runId);
  if (script === 'proxy') {
    if (vectors === undefined) throw new Error('--script proxy needs --vectors FILE');
    return proxyScript(loadProxyCases(vectors));
  }
  throw new Error(`--script must be client or proxy, got '${script ?? ''}'`);
}

/** `mcp-failures check serve-scripted ...`: serves on stdin/stdout until stdin ends. */
export async function runServeScripted(
  argv: readonly string[],
  io: { stdout(text: string): void; stderr(text: string): void },
): Promise<number> {
  let tools: ScriptedTool[];
  let log: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv.slice(2),
      strict: true,
      options: {
        script: { type: 'string' },
        'run-id': { type: 'string' },
        vectors: { type: 'string' },
        log: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help === true) {
      io.stdout(SERVE_SCRIPTED_USAGE);
      return 0;
    }
    tools = scriptedToolsOf(values.script, values['run-id'] ?? 'manual', values.vectors);
    log = values.log;
  } catch (error) {
    io.stderr(`mcp-failures: ${firstLineOf(error)}\n`);
    return 2;
  }
  const onCall = (call: ScriptedCall): void => {
    if (log !== undefined) appendFileSync(log, `${JSON.stringify(call)}\n`);
  };
  await serveStdio(createScriptedHandler(tools, onCall), process.stdin, (line) => io.stdout(line));
  return 0;
}

/** The calls a `serve-scripted --log FILE` process recorded; none when it never started. */
export function readCallLog(path: string): ScriptedCall[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const calls: ScriptedCall[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      calls.push(JSON.parse(line) as ScriptedCall);
    } catch {
      // a line cut short when the process was killed mid-write
    }
  }
  return calls;
}
