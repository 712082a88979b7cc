/**
 * A command line split at its first `--`: the options of our own command before it, and the
 * command it runs (the server, client or upstream under test) after it, passed on untouched.
 */
export function splitAtDashes(argv: readonly string[]): {
  own: string[];
  command: string[];
  /** Whether the line has a `--` at all (a `--` with nothing after it is still one). */
  dashed: boolean;
} {
  const dash = argv.indexOf('--');
  return dash === -1
    ? { own: [...argv], command: [], dashed: false }
    : { own: argv.slice(0, dash), command: argv.slice(dash + 1), dashed: true };
}
