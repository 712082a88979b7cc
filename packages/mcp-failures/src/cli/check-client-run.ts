/**
 * Runs the command under test of `check client` / `check proxy` as a child process: its stdout
 * kept as lines, the last line of its stderr kept to explain a failure, a deadline after which it
 * is killed. Also the placeholder substitution both commands share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { onWireLines } from './wire-lines.js';
import { firstLineOf } from '@omcp/tool-failure/wire';

/** How the child ended. */
export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdoutLines: string[];
  lastStderrLine: string;
  timedOut: boolean;
}

/** The command could not be started; the message is one line. */
export class ChildStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChildStartError';
  }
}

/** A started child, with its stdout lines and its end. */
export interface StartedChild {
  child: ChildProcess;
  /** Settles when the child exits (or could not start: then rejects with ChildStartError). */
  ended: Promise<ChildRun>;
  lastStderrLine(): string;
  /** Ends the child: SIGTERM, then SIGKILL after a grace period. */
  stop(): void;
}

/**
 * Starts `command args` with `env` added to this process's environment. With `stdin: 'pipe'`
 * the caller speaks on its stdin/stdout (a proxy under test) and `onLine` sees its stdout lines.
 */
export function startChild(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { stdin: 'pipe' | 'ignore'; timeoutMs: number; onLine?: (line: string) => void },
): StartedChild {
  const child = spawn(command, [...args], {
    env: { ...process.env, ...env },
    stdio: [options.stdin, 'pipe', 'pipe'],
  });
  const stdoutLines: string[] = [];
  let lastStderrLine = '';
  let timedOut = false;
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const lines = chunk
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    lastStderrLine = lines.at(-1) ?? lastStderrLine;
  });
  if (child.stdout !== null)
    onWireLines(child.stdout, (line) => {
      if (options.onLine !== undefined) options.onLine(line);
      else stdoutLines.push(line);
    });
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    killTimer ??= setTimeout(() => child.kill('SIGKILL'), 2_000);
    killTimer.unref();
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const ended = new Promise<ChildRun>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      reject(
        new ChildStartError(
          `cannot start '${command}': ${error.code === 'ENOENT' ? 'no such command' : firstLineOf(error)}`,
        ),
      );
    });
    child.once('close', (code, signal) => {
      clearTimeout(deadline);
      clearTimeout(killTimer);
      resolve({ code, signal, stdoutLines, lastStderrLine, timedOut });
    });
  });
  // A rejection nobody awaits yet must not crash the process; callers await `ended`.
  ended.catch(() => undefined);
  return { child, ended, lastStderrLine: () => lastStderrLine, stop };
}

/**
 * Substitutes placeholders in a command's arguments: an argument that is exactly a key of
 * `words` becomes those words (a command line); `{name}` inside any argument becomes `text[name]`.
 */
export function substitute(
  args: readonly string[],
  words: Readonly<Record<string, readonly string[]>>,
  text: Readonly<Record<string, string>>,
): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const spread = words[arg];
    if (spread !== undefined) {
      out.push(...spread);
      continue;
    }
    out.push(arg.replace(/\{([a-z-]+)\}/g, (whole, name: string) => text[name] ?? whole));
  }
  return out;
}
