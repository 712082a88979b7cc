/**
 * The commands of `mcp-failures` and which one a command line names: the one place that lists
 * them, for the top-level help and for the dispatch in `mcp-failures.ts`.
 */

/** A command the executable runs; `serve-scripted` is the check kit's own helper, not listed. */
export type Command = 'lookup' | 'check server' | 'check client' | 'check proxy' | 'serve-scripted';

const LISTED: ReadonlyArray<{ command: Command; args: string; summary: string }> = [
  {
    command: 'lookup',
    args: '<correlationId> (--jaeger-url URL | --file PATH)',
    summary: 'the failure chain of a correlationId, from Jaeger or an OTLP/JSON file',
  },
  {
    command: 'check server',
    args: '(--scenario FILE | --call TOOL) (-- COMMAND | --url URL)',
    summary: 'checks the failure objects an MCP server returns',
  },
  {
    command: 'check client',
    args: '-- COMMAND',
    summary: 'checks how an MCP client acts on failures, against scripted servers',
  },
  {
    command: 'check proxy',
    args: '-- PROXY_COMMAND',
    summary: 'checks that an intermediary relays failure objects unchanged',
  },
];

/** The top-level help: every command, one line each, and where its own help is. */
export const TOP_USAGE = `Usage: mcp-failures <command> [options]

Commands:
${LISTED.map(({ command, args, summary }) => `  ${command} ${args}\n      ${summary}`).join('\n')}

Run mcp-failures <command> --help for a command's options (e.g. mcp-failures check server --help).

Exit status: 0 success, 1 not found or check failed, 2 usage, input or connection error.
`;

/** What a command line asks for. */
export type Route =
  | { kind: 'help' }
  /** No command at all: the help, as a usage mistake (on stderr, exit 2). */
  | { kind: 'list' }
  | { kind: 'usage'; message: string }
  | { kind: 'run'; command: Command };

const HELP = new Set(['--help', '-h', 'help']);
const CHECKS = new Map<string, Command>([
  ['server', 'check server'],
  ['client', 'check client'],
  ['proxy', 'check proxy'],
  ['serve-scripted', 'serve-scripted'],
]);
const NAMES = LISTED.map((c) => c.command).join(', ');

/** The command `argv` (the arguments after the program name) names, help, or the mistake. */
export function route(argv: readonly string[]): Route {
  const [first, second] = argv;
  if (first === undefined) return { kind: 'list' };
  if (argv.length === 1 && HELP.has(first)) return { kind: 'help' };
  if (first === 'lookup') return { kind: 'run', command: 'lookup' };
  if (first === 'check') {
    const command = second === undefined ? undefined : CHECKS.get(second);
    if (command !== undefined) return { kind: 'run', command };
    if (argv.length === 2 && second !== undefined && HELP.has(second)) return { kind: 'help' };
    return {
      kind: 'usage',
      message:
        second === undefined
          ? 'missing what to check: server, client or proxy'
          : `unknown check '${second}': server, client or proxy`,
    };
  }
  return { kind: 'usage', message: `unknown command '${first}': ${NAMES}` };
}
