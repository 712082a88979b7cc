import { describe, expect, it } from 'vitest';
import { splitAtDashes } from '../../src/executable/argv.js';

describe('splitAtDashes (the CLIs: own options, then the command they run)', () => {
  it('splits at the first --, and passes later ones on to the command', () => {
    expect(splitAtDashes(['--timeout', '5', '--', 'node', 'server.js', '--', '-x'])).toEqual({
      own: ['--timeout', '5'],
      command: ['node', 'server.js', '--', '-x'],
      dashed: true,
    });
  });

  it('without --, every argument is our own and there is no command', () => {
    const argv = ['--url', 'http://127.0.0.1:1/mcp'];
    const split = splitAtDashes(argv);
    expect(split).toEqual({ own: argv, command: [], dashed: false });
    // A copy: the caller's array is never handed back to be changed.
    expect(split.own).not.toBe(argv);
  });

  it('a -- with nothing after it still counts as given', () => {
    expect(splitAtDashes(['--'])).toEqual({ own: [], command: [], dashed: true });
  });
});
