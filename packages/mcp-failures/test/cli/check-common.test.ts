import { describe, expect, it } from 'vitest';
import {
  CHECK_EXIT,
  CheckUsageError,
  parseCheckArgs,
  parseTimeout,
  runCheckCommand,
  stringsOption,
  type CheckArgs,
  type CheckCommand,
} from '../../src/cli/check-common.js';

class Unreachable extends Error {}

const SPEC: CheckCommand = {
  what: 'thing',
  usage: 'Usage: mcp-failures check thing\n',
  options: ['name'],
  repeatable: ['each'],
  defaultTimeoutMs: 1234,
  oneLine: [Unreachable],
};

function output(): {
  text: { stdout: string; stderr: string };
  io: Parameters<typeof runCheckCommand>[2];
} {
  const text = { stdout: '', stderr: '' };
  return {
    text,
    io: { stdout: (t) => void (text.stdout += t), stderr: (t) => void (text.stderr += t) },
  };
}

describe('the check command scaffold', () => {
  it('reads the options, the repeated ones, the command after -- and the timeout', () => {
    const args = parseCheckArgs(
      [
        'check',
        'thing',
        '--name',
        'n',
        '--each',
        'a',
        '--each',
        'b',
        '--timeout',
        '7',
        '--',
        'x',
        '--y',
      ],
      SPEC,
    ) as CheckArgs;
    expect(args.values.name).toBe('n');
    expect(stringsOption(args.values, 'each')).toEqual(['a', 'b']);
    expect(stringsOption(args.values, 'name')).toEqual([]);
    expect(args.command).toEqual(['x', '--y']);
    expect(args.dashed).toBe(true);
    expect(args.timeoutMs).toBe(7);
  });

  it('the default timeout, and no -- at all', () => {
    const args = parseCheckArgs(['check', 'thing'], SPEC) as CheckArgs;
    expect(args.timeoutMs).toBe(1234);
    expect(args.dashed).toBe(false);
    expect(args.command).toEqual([]);
  });

  it('help wins over every other mistake but an unknown option', () => {
    expect(parseCheckArgs(['check', 'thing', 'extra', '-h'], SPEC)).toBe('help');
    expect(() => parseCheckArgs(['check', 'thing', '--help', '--bogus'], SPEC)).toThrow(
      CheckUsageError,
    );
  });

  it.each([
    [['check', 'thing', '--bogus'], /Unknown option '--bogus'/],
    [['check'], /^missing what to check: server, client or proxy$/],
    [['check', 'other'], /^unknown check 'other': expected server, client or proxy$/],
    [['look', 'thing'], /^unknown command 'look'$/],
    [
      ['check', 'thing', 'extra'],
      /^unexpected argument 'extra' \(the thing command goes after --\)$/,
    ],
    [['check', 'thing', '--timeout', '0'], /^--timeout must be a whole number/],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseCheckArgs(argv, SPEC)).toThrow(message);
  });

  it.each([
    ['1', 1],
    ['600000', 600_000],
    [undefined, 5],
  ])('--timeout %s is %d ms', (text, ms) => {
    expect(parseTimeout(text, 5)).toBe(ms);
  });

  it.each(['0', '-1', '1.5', 'x', '600001', ''])('--timeout %j is refused', (text) => {
    expect(() => parseTimeout(text, 5)).toThrow(
      `--timeout must be a whole number of milliseconds from 1 to 600000, got '${text}'`,
    );
  });

  it('prints the usage on --help and exits 0 without running the check', async () => {
    const { text, io } = output();
    let ran = false;
    const code = await runCheckCommand(SPEC, ['check', 'thing', '--help'], io, async () => {
      ran = true;
      return CHECK_EXIT.fail;
    });
    expect({ code, ran, ...text }).toEqual({
      code: CHECK_EXIT.pass,
      ran: false,
      stdout: SPEC.usage,
      stderr: '',
    });
  });

  it('runs the check with the parsed arguments and exits with its code', async () => {
    const { io } = output();
    const code = await runCheckCommand(SPEC, ['check', 'thing', '--name', 'n'], io, async (a) =>
      a.values.name === 'n' ? CHECK_EXIT.fail : CHECK_EXIT.pass,
    );
    expect(code).toBe(CHECK_EXIT.fail);
  });

  it.each([
    [
      new CheckUsageError('bad option'),
      'mcp-failures: bad option (mcp-failures check thing --help for usage)\n',
    ],
    [new Unreachable('cannot reach it'), 'mcp-failures: cannot reach it\n'],
    [new Error('boom\n    at x'), 'mcp-failures: unexpected error: boom\n'],
  ])('a thrown %s is one line on stderr, exit 2', async (error, line) => {
    const { text, io } = output();
    const code = await runCheckCommand(SPEC, ['check', 'thing'], io, () => Promise.reject(error));
    expect({ code, ...text }).toEqual({ code: CHECK_EXIT.error, stdout: '', stderr: line });
  });
});
