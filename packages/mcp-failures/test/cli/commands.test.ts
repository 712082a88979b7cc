import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { route, TOP_USAGE } from '../../src/cli/commands.js';
import { CHECK_CLIENT_USAGE } from '../../src/cli/check-client-command.js';
import { CHECK_PROXY_USAGE } from '../../src/cli/check-proxy-command.js';
import { CHECK_SERVER_USAGE } from '../../src/cli/check-server-command.js';
import { USAGE as LOOKUP_USAGE } from '../../src/cli/lookup-command.js';
import { binPath } from '../../../../scripts/workspace.mjs';

const bin = binPath('mcp-failures');

function mcpFailures(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { timeout: 20_000 }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, out, err });
    });
  });
}

/** The first line of a usage text: `Usage: mcp-failures <command> ...`. */
const commandOf = (usage: string): string =>
  /^Usage: mcp-failures ((?:check )?\w+)/.exec(usage)?.[1] ?? '';

describe('mcp-failures commands', () => {
  it('the top-level help lists every command that has a usage of its own', () => {
    const commands = [LOOKUP_USAGE, CHECK_SERVER_USAGE, CHECK_CLIENT_USAGE, CHECK_PROXY_USAGE].map(
      commandOf,
    );
    expect(commands).toEqual(['lookup', 'check server', 'check client', 'check proxy']);
    for (const command of commands) expect(TOP_USAGE).toContain(`\n  ${command} `);
    expect(TOP_USAGE).not.toContain('serve-scripted');
  });

  it.each([
    [['lookup', 'abc', '--file', 'x'], 'lookup'],
    [['lookup', '--help'], 'lookup'],
    [['check', 'server', '--help'], 'check server'],
    [['check', 'client'], 'check client'],
    [['check', 'proxy', '--', 'x'], 'check proxy'],
    [['check', 'serve-scripted', '--script', 'client'], 'serve-scripted'],
  ])('%j runs %s', (argv, command) => {
    expect(route(argv)).toEqual({ kind: 'run', command });
  });

  it.each([[['--help']], [['-h']], [['help']], [['check', '--help']]])('%j is the help', (argv) => {
    expect(route(argv)).toEqual({ kind: 'help' });
  });

  it.each([
    [['bogus'], "unknown command 'bogus': lookup, check server, check client, check proxy"],
    [
      ['--file', 'x', 'lookup'],
      "unknown command '--file': lookup, check server, check client, check proxy",
    ],
    [['check'], 'missing what to check: server, client or proxy'],
    [['check', 'nope'], "unknown check 'nope': server, client or proxy"],
  ])('%j is a usage mistake', (argv, message) => {
    expect(route(argv)).toEqual({ kind: 'usage', message });
  });

  it('as a process: --help prints the list on stdout, exit 0', async () => {
    const run = await mcpFailures(['--help']);
    expect(run).toEqual({ code: 0, out: TOP_USAGE, err: '' });
  });

  it('as a process: no command prints the list on stderr, exit 2', async () => {
    const run = await mcpFailures([]);
    expect(run).toEqual({ code: 2, out: '', err: TOP_USAGE });
  });

  it('as a process: an unknown command is one line on stderr, exit 2', async () => {
    const run = await mcpFailures(['lokup', 'abc']);
    expect(run).toEqual({
      code: 2,
      out: '',
      err: "mcp-failures: unknown command 'lokup': lookup, check server, check client, check proxy (mcp-failures --help for usage)\n",
    });
  });

  it('as a process: lookup --help is still the lookup usage', async () => {
    const run = await mcpFailures(['lookup', '--help']);
    expect(run).toEqual({ code: 0, out: LOOKUP_USAGE, err: '' });
  });
});
