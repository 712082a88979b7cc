import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  EXIT_FLUSH_TIMEOUT_ENV,
  ExitHandlers,
  SHUTDOWN_TIMEOUT_MS,
  exitFlushTimeoutMs,
  type ExitProcess,
} from '../../src/register/shutdown.js';

/** A stand-in for `process`: events are emitted by the test, `kill` is recorded. */
class FakeProcess extends EventEmitter {
  readonly pid = 4242;
  readonly killed: string[] = [];
  kill(_pid: number, signal: string): true {
    this.killed.push(signal);
    return true;
  }
}

describe('the bounded flush', () => {
  it('at the bound: exports stop retrying first, one line says what is dropped, and the exit path does not follow', async () => {
    const proc = new FakeProcess();
    const calls: string[] = [];
    new ExitHandlers(
      {
        shutdown: () => new Promise<void>(() => {}),
        flushSync: () => {
          calls.push('flushSync');
          return [];
        },
        stopping: () => calls.push('stopping'),
        report: (abandoned) => `dropped after ${abandoned} ms`,
        notice: (line) => calls.push(line),
      },
      proc as unknown as ExitProcess,
      20,
    );
    proc.emit('beforeExit');
    await new Promise((resolve) => setTimeout(resolve, 60));
    proc.emit('exit');
    expect(calls).toEqual(['stopping', 'dropped after 20 ms']);
  });

  it('a flush that ends: the report is the one line, not how the flush failed', async () => {
    const proc = new FakeProcess();
    const notices: string[] = [];
    new ExitHandlers(
      {
        shutdown: () => Promise.reject(new Error('connect ECONNREFUSED')),
        flushSync: () => [],
        report: (abandoned) => (abandoned === undefined ? '3 spans dropped' : undefined),
        notice: (line) => notices.push(line),
      },
      proc as unknown as ExitProcess,
      1_000,
    );
    proc.emit('SIGTERM', 'SIGTERM');
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(notices).toEqual(['3 spans dropped']);
    expect(proc.killed).toEqual(['SIGTERM']);
  });
});

describe('exitFlushTimeoutMs', () => {
  it('reads a number of milliseconds > 0; anything else is the default, said once', () => {
    const warnings: string[] = [];
    const read = (value: string | undefined): number =>
      exitFlushTimeoutMs({ [EXIT_FLUSH_TIMEOUT_ENV]: value }, (w) => warnings.push(w));
    expect([read(undefined), read(' '), read('4000'), read('0'), read('soon')]).toEqual([
      SHUTDOWN_TIMEOUT_MS,
      SHUTDOWN_TIMEOUT_MS,
      4000,
      SHUTDOWN_TIMEOUT_MS,
      SHUTDOWN_TIMEOUT_MS,
    ]);
    expect(warnings).toEqual([
      `${EXIT_FLUSH_TIMEOUT_ENV}=0 is not a number of milliseconds > 0; using the default`,
      `${EXIT_FLUSH_TIMEOUT_ENV}=soon is not a number of milliseconds > 0; using the default`,
    ]);
  });
});
