/** Argument reading shared by `check client` and `check proxy`. */
import { parseArgs } from 'node:util';
import { firstLineOf } from '../shared/first-line.js';
import { splitAtDashes } from '../shared/argv.js';

/** A command line that cannot be used; the message is one line. */
export class CheckUsageError extends Error {}

/** The command's own options (before `--`) and the command under test (after it). */
export interface CheckArgs {
  values: Record<string, string | boolean | undefined>;
  command: string[];
}

/** Parses `check <what> [options] -- COMMAND ...`; every option in `names` takes a string. */
export function parseCheckArgs(
  argv: readonly string[],
  what: string,
  names: readonly string[],
): CheckArgs {
  const { own, command } = splitAtDashes(argv);
  const options: Record<string, { type: 'string' } | { type: 'boolean'; short: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const name of names) options[name] = { type: 'string' };
  let parsed;
  try {
    parsed = parseArgs({ args: [...own], allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new CheckUsageError(firstLineOf(error));
  }
  const values = parsed.values as CheckArgs['values'];
  const extra = parsed.positionals.slice(2);
  if (extra.length > 0 && values.help !== true)
    throw new CheckUsageError(
      `unexpected argument '${extra[0]}' (the ${what} command goes after --)`,
    );
  return { values, command };
}

/** A string option's value, or undefined. */
export function stringOption(args: CheckArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** `--timeout MS`, checked: a whole number from 1 to 600000. */
export function parseTimeout(text: string | undefined, fallback: number): number {
  const ms = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(ms) || ms <= 0 || ms > 600_000)
    throw new CheckUsageError(
      `--timeout must be a whole number of milliseconds from 1 to 600000, got '${text}'`,
    );
  return ms;
}
