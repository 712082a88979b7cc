import { firstLineOf } from '@omcp/tool-failure/wire';

/**
 * How long the flush at SIGTERM, SIGINT or `beforeExit` may take: then what the collector has
 * not confirmed is counted and the process ends without it.
 */
export const SHUTDOWN_TIMEOUT_MS = 1_500;

/** The variable that sets {@link SHUTDOWN_TIMEOUT_MS} for one process, in milliseconds. */
export const EXIT_FLUSH_TIMEOUT_ENV = 'OTEL_INSTRUMENTATION_MCP_EXIT_FLUSH_TIMEOUT';

/**
 * The flush bound `env` sets (a number of milliseconds > 0), else {@link SHUTDOWN_TIMEOUT_MS};
 * a value that cannot be read is said through `warn`.
 */
export function exitFlushTimeoutMs(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => {},
): number {
  const raw = env[EXIT_FLUSH_TIMEOUT_ENV]?.trim();
  if (raw === undefined || raw === '') return SHUTDOWN_TIMEOUT_MS;
  const value = Number(raw);
  if (Number.isFinite(value) && value > 0) return value;
  warn(`${EXIT_FLUSH_TIMEOUT_ENV}=${raw} is not a number of milliseconds > 0; using the default`);
  return SHUTDOWN_TIMEOUT_MS;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** What the exit handlers drive: the SDK's flush and the synchronous last resort. */
export interface ExitHooks {
  /** Flushes and stops telemetry. */
  shutdown(): Promise<void>;
  /** Sends what is still unconfirmed, synchronously; returns the lines to say (what was lost). */
  flushSync(): string[];
  /** The flush begins: exports get one attempt each from now on (no retries, no waits). */
  stopping?(): void;
  /**
   * The one line saying what the collector never confirmed, if anything; `abandonedAfterMs`
   * when the flush ran out of time (what is still waiting counts too).
   */
  report?(abandonedAfterMs?: number): string | undefined;
  /** Says one line on stderr. */
  notice(message: string): void;
}

/** The part of `process` the handlers use, so tests can drive them without ending the runner. */
export type ExitProcess = Pick<
  NodeJS.Process,
  'on' | 'removeListener' | 'listenerCount' | 'kill' | 'pid'
>;

/**
 * How the register entry ends telemetry, one object per started SDK:
 * - SIGTERM / SIGINT start one flush bounded by {@link SHUTDOWN_TIMEOUT_MS}: exports get one
 *   attempt each, and its timer is what keeps the process alive meanwhile (the exporters' sockets
 *   and retry timers never do); once it ends, or runs out of time, one line says what was not
 *   delivered, and nothing of the telemetry path runs any more. The handlers stay
 *   installed until it ends, so a second signal (a process-group signal plus a wrapper that
 *   forwards it) cannot kill the process in the middle of it; once it ends, the signal is
 *   raised again when no other listener owns the exit, so the process ends the way it would
 *   have without telemetry.
 * - `beforeExit` (the event loop ran dry) starts the same flush; the process then exits with
 *   its own code.
 * - `exit` before that flush ended (`process.exit()`, an uncaught exception, an unhandled
 *   rejection, a listener of the signal that exits): nothing asynchronous runs any more, so
 *   `flushSync` sends what it can.
 */
export class ExitHandlers {
  private stopping: Promise<void> | undefined;
  private done = false;
  private repeated = false;
  /** The first signal: the one raised again once the flush ends. */
  private signalled: NodeJS.Signals | undefined;
  private readonly onSignal = (signal: NodeJS.Signals): void => this.signal(signal);
  private readonly onBeforeExit = (): void => void this.stop();
  private readonly onExit = (): void => this.exit();

  constructor(
    private readonly hooks: ExitHooks,
    private readonly proc: ExitProcess = process,
    private readonly timeoutMs: number = SHUTDOWN_TIMEOUT_MS,
  ) {
    for (const signal of SIGNALS) proc.on(signal, this.onSignal);
    proc.on('beforeExit', this.onBeforeExit);
    proc.on('exit', this.onExit);
  }

  /** The one bounded flush; every later caller gets the same promise. It never rejects. */
  stop(): Promise<void> {
    return (this.stopping ??= new Promise<void>((resolve) => {
      let failure: string | undefined;
      const end = (abandoned?: number): void => {
        if (this.done) return;
        this.done = true;
        clearTimeout(timer);
        // One line: what was not delivered says more than how the flush failed.
        const line =
          this.hooks.report?.(abandoned) ??
          (abandoned === undefined
            ? failure && `telemetry flush failed: ${failure}`
            : `telemetry flush did not end within ${abandoned} ms; the process ends without it`);
        if (line !== undefined) this.hooks.notice(line);
        resolve();
      };
      // Referenced: during the flush this timer, not the exporters' sockets, keeps the process up.
      const timer = setTimeout(() => end(this.timeoutMs), this.timeoutMs);
      try {
        this.hooks.stopping?.();
      } catch {
        // the flush still runs, with the exporters' own retries
      }
      this.hooks
        .shutdown()
        .catch((error: unknown) => (failure = firstLineOf(error)))
        .finally(() => end());
    }));
  }

  private signal(signal: NodeJS.Signals): void {
    if (this.signalled !== undefined) {
      if (!this.done && !this.repeated)
        this.hooks.notice(
          `${signal} during the telemetry flush: the process ends when the flush does (within ${this.timeoutMs} ms)`,
        );
      this.repeated = true;
      return;
    }
    this.signalled = signal;
    void this.stop().then(() => {
      for (const s of SIGNALS) this.proc.removeListener(s, this.onSignal);
      // Other listeners own the exit; with none left, end the way the signal would have.
      if (this.proc.listenerCount(signal) === 0) this.proc.kill(this.proc.pid, signal);
    });
  }

  private exit(): void {
    if (this.done) return;
    this.done = true;
    try {
      for (const line of this.hooks.flushSync()) this.hooks.notice(line);
    } catch (error) {
      // The exit goes on whatever happens here: never turn it into a crash.
      this.hooks.notice(`telemetry not sent at exit: ${firstLineOf(error)}`);
    }
  }
}
