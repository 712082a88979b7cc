/**
 * The scaffold every `mcp-failures check` command runs in: its command line read once
 * (node:util `parseArgs`, the command under test after `--`, `--timeout` checked here), its
 * help, its mistakes as one line on stderr, its exit codes and its JSON report.
 */
import { parseArgs } from 'node:util';
import { splitAtDashes } from '@omcp/instrumentation-mcp/executable';
import { firstLineOf } from '@omcp/tool-failure/wire';

/** Exit codes of every check: 0 each exercised rule passed, 1 a rule failed, 2 usage or connection. */
export const CHECK_EXIT = Object.freeze({ pass: 0, fail: 1, error: 2 });

/** A command line that cannot be used; the message is one line. */
export class CheckUsageError extends Error {}

/** The command's own options (before `--`) and the command under test (after it). */
export interface CheckArgs {
  values: Record<string, string | string[] | boolean | undefined>;
  /** The words after `--`. */
  command: string[];
  /** Whether `--` was given at all. */
  dashed: boolean;
  /** `--timeout MS`, checked, or the command's default. */
  timeoutMs: number;
}

/** What a check command is, for the scaffold. */
export interface CheckCommand {
  /** `server`, `client` or `proxy`: the word after `check`. */
  what: string;
  usage: string;
  /** Its options that take a string (`--timeout` aside); those in `repeatable` may be repeated. */
  options: readonly string[];
  repeatable?: readonly string[];
  /** The `--timeout` when none is given, in milliseconds. */
  defaultTimeoutMs: number;
  /** Errors whose message is the whole story (one line, exit 2, no pointer to the help). */
  oneLine: ReadonlyArray<abstract new (...args: never[]) => Error>;
}

/** Everything a check command writes besides its files. */
export interface CheckOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Longest `--timeout` any check accepts, in milliseconds (ten minutes). */
const MAX_TIMEOUT_MS = 600_000;

/**
 * Reads `check <what> [options] -- COMMAND ...`: the options of `spec`, `--timeout` and
 * `-h`/`--help`; `'help'` when help was asked for.
 */
export function parseCheckArgs(argv: readonly string[], spec: CheckCommand): CheckArgs | 'help' {
  const { own, command, dashed } = splitAtDashes(argv);
  const options: Record<
    string,
    { type: 'string'; multiple?: true } | { type: 'boolean'; short: string }
  > = { help: { type: 'boolean', short: 'h' }, timeout: { type: 'string' } };
  for (const name of spec.options) options[name] = { type: 'string' };
  for (const name of spec.repeatable ?? []) options[name] = { type: 'string', multiple: true };
  let parsed;
  try {
    parsed = parseArgs({ args: [...own], allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new CheckUsageError(firstLineOf(error));
  }
  const values = parsed.values as CheckArgs['values'];
  if (values.help === true) return 'help';
  const [check, what, ...extra] = parsed.positionals;
  if (check !== 'check') throw new CheckUsageError(`unknown command '${check ?? ''}'`);
  if (what === undefined)
    throw new CheckUsageError('missing what to check: server, client or proxy');
  if (what !== spec.what)
    throw new CheckUsageError(`unknown check '${what}': expected server, client or proxy`);
  if (extra.length > 0)
    throw new CheckUsageError(
      `unexpected argument '${extra[0]}' (the ${spec.what} command goes after --)`,
    );
  const timeoutMs = parseTimeout(stringOption(values, 'timeout'), spec.defaultTimeoutMs);
  return { values, command, dashed, timeoutMs };
}

/** A string option's value, or undefined. */
export function stringOption(values: CheckArgs['values'], name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable option's values, in order; none: empty. */
export function stringsOption(values: CheckArgs['values'], name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : [];
}

/** `--timeout MS`, checked: a whole number from 1 to 600000. */
export function parseTimeout(text: string | undefined, fallback: number): number {
  const ms = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS)
    throw new CheckUsageError(
      `--timeout must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got '${text}'`,
    );
  return ms;
}

/**
 * Runs the check `spec` names on `argv` (from `check` on): the help, or `run` with the parsed
 * command line. Resolves with the exit code; whatever goes wrong is one line on stderr and
 * `CHECK_EXIT.error`, never a stack trace.
 */
export async function runCheckCommand(
  spec: CheckCommand,
  argv: readonly string[],
  io: CheckOutput,
  run: (args: CheckArgs) => Promise<number>,
): Promise<number> {
  try {
    const args = parseCheckArgs(argv, spec);
    if (args === 'help') {
      io.stdout(spec.usage);
      return CHECK_EXIT.pass;
    }
    return await run(args);
  } catch (error) {
    io.stderr(`mcp-failures: ${errorLine(spec, error)}\n`);
    return CHECK_EXIT.error;
  }
}

function errorLine(spec: CheckCommand, error: unknown): string {
  if (error instanceof CheckUsageError)
    return `${error.message} (mcp-failures check ${spec.what} --help for usage)`;
  if (spec.oneLine.some((kind) => error instanceof kind)) return (error as Error).message;
  return `unexpected error: ${firstLineOf(error)}`;
}

/** What a check that runs a program under test takes besides its own options. */
export interface ProgramUnderTest {
  /** The program after `--`, and its arguments. */
  command: string;
  args: string[];
  /** `--report FILE`, where the JSON report goes. */
  report: string | undefined;
  /** `--timeout MS`. */
  timeoutMs: number;
}

/**
 * The program under test (the words after `--`), `--report` and `--timeout`; a usage error
 * naming `what` to give and its `placeholder` (`client`, `COMMAND`) when there is no program.
 */
export function programUnderTest(
  { values, command, timeoutMs }: CheckArgs,
  what: string,
  placeholder: string,
): ProgramUnderTest {
  const [program, ...args] = command;
  if (program === undefined || program === '')
    throw new CheckUsageError(`give the ${what} to run: -- ${placeholder} [ARGS...]`);
  return { command: program, args, report: stringOption(values, 'report'), timeoutMs };
}

/**
 * How every check ends, after its table: the JSON report written to `path` when one was asked
 * for (`json` is built only then), and the exit code of the verdict. A report that cannot be
 * written is said in one line and makes the exit `CHECK_EXIT.error`.
 */
export async function endCheck(
  io: { writeFile(path: string, text: string): Promise<void>; stderr(text: string): void },
  path: string | undefined,
  json: () => unknown,
  verdict: string,
): Promise<number> {
  if (path !== undefined) {
    try {
      await io.writeFile(path, `${JSON.stringify(json(), null, 2)}\n`);
    } catch (error) {
      io.stderr(`mcp-failures: cannot write the report ${path}: ${firstLineOf(error)}\n`);
      return CHECK_EXIT.error;
    }
  }
  return verdict === 'pass' ? CHECK_EXIT.pass : CHECK_EXIT.fail;
}
