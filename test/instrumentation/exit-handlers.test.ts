import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ExitLedger } from '../../src/register/exit-ledger.js';
import { ExitHandlers, type ExitProcess } from '../../src/register/shutdown.js';
import { otlpHttpTarget } from '../../src/register/sync-post.js';

/** A stand-in for `process`: events are emitted by the test, `kill` is recorded. */
class FakeProcess extends EventEmitter {
  readonly pid = 4242;
  readonly killed: Array<[number, string]> = [];
  kill(pid: number, signal: string): true {
    this.killed.push([pid, signal]);
    return true;
  }
}

function handlers(shutdown: () => Promise<void>, timeoutMs = 1_000) {
  const proc = new FakeProcess();
  const notices: string[] = [];
  let syncFlushes = 0;
  new ExitHandlers(
    {
      shutdown,
      flushSync: () => {
        syncFlushes++;
        return ['2 spans not sent at exit (x unreachable)'];
      },
      notice: (line) => notices.push(line),
    },
    proc as unknown as ExitProcess,
    timeoutMs,
  );
  return { proc, notices, syncFlushes: () => syncFlushes };
}

/** A flush the test ends by hand. */
function manualFlush(): { shutdown: () => Promise<void>; calls: () => number; end(): void } {
  let calls = 0;
  let end = (): void => {};
  const promise = new Promise<void>((resolve) => (end = resolve));
  return {
    shutdown: () => {
      calls++;
      return promise;
    },
    calls: () => calls,
    end: () => end(),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ExitHandlers', () => {
  it('a second signal during the flush neither starts another nor ends the process; the first is raised again after it', async () => {
    const flush = manualFlush();
    const { proc, notices } = handlers(flush.shutdown);
    proc.emit('SIGTERM', 'SIGTERM');
    proc.emit('SIGTERM', 'SIGTERM');
    proc.emit('SIGINT', 'SIGINT');
    await tick();
    expect(flush.calls()).toBe(1);
    expect(proc.killed).toEqual([]);
    expect(notices).toEqual([
      'SIGTERM during the telemetry flush: the process ends when the flush does (within 1000 ms)',
    ]);
    // Our listener is still there while the flush runs: the default action cannot kill.
    expect(proc.listenerCount('SIGTERM')).toBe(1);
    flush.end();
    await tick();
    expect(proc.killed).toEqual([[4242, 'SIGTERM']]);
    expect(proc.listenerCount('SIGTERM')).toBe(0);
  });

  it('another listener of the signal owns the exit: the signal is not raised again', async () => {
    const flush = manualFlush();
    const { proc } = handlers(flush.shutdown);
    proc.on('SIGINT', () => {});
    proc.emit('SIGINT', 'SIGINT');
    flush.end();
    await tick();
    expect(proc.killed).toEqual([]);
  });

  it('a flush that does not end is cut at the bound, said in one line, and the signal raised', async () => {
    const { proc, notices } = handlers(() => new Promise<void>(() => {}), 20);
    proc.emit('SIGTERM', 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(notices).toEqual([
      'telemetry flush did not end within 20 ms; the process ends without it',
    ]);
    expect(proc.killed).toEqual([[4242, 'SIGTERM']]);
  });

  it('a failing flush is one line, and the exit goes on', async () => {
    const { proc, notices } = handlers(() => Promise.reject(new Error('collector said no\nstack')));
    proc.emit('SIGTERM', 'SIGTERM');
    await tick();
    await tick();
    expect(notices).toEqual(['telemetry flush failed: collector said no']);
    expect(proc.killed).toEqual([[4242, 'SIGTERM']]);
  });

  it('beforeExit flushes once; a signal during it is raised when it ends', async () => {
    const flush = manualFlush();
    const { proc } = handlers(flush.shutdown);
    proc.emit('beforeExit');
    proc.emit('beforeExit');
    proc.emit('SIGTERM', 'SIGTERM');
    expect(flush.calls()).toBe(1);
    flush.end();
    await tick();
    expect(proc.killed).toEqual([[4242, 'SIGTERM']]);
  });

  it('exit before the flush ended takes the synchronous path once and says what it lost', () => {
    const flush = manualFlush();
    const { proc, notices, syncFlushes } = handlers(flush.shutdown);
    proc.emit('SIGTERM', 'SIGTERM');
    proc.emit('exit', 1);
    proc.emit('exit', 1);
    expect(syncFlushes()).toBe(1);
    expect(notices).toEqual(['2 spans not sent at exit (x unreachable)']);
  });

  it('exit after the flush ended sends nothing more', async () => {
    const flush = manualFlush();
    const { proc, syncFlushes } = handlers(flush.shutdown);
    proc.emit('beforeExit');
    flush.end();
    await tick();
    proc.emit('exit', 0);
    expect(syncFlushes()).toBe(0);
  });
});

describe('ExitLedger', () => {
  it('holds what waits and what is in flight until the exporter answers', () => {
    const ledger = new ExitLedger<string>(10);
    for (const item of ['a', 'b', 'c']) ledger.record(item);
    ledger.exporting(['a', 'b']);
    expect(ledger.size).toBe(3);
    ledger.settled(['a']);
    expect(ledger.take()).toEqual(['b', 'c']);
    expect(ledger.size).toBe(0);
  });

  it('is bounded like the batch queue: past its capacity new items are not recorded', () => {
    const ledger = new ExitLedger<number>(2);
    for (const n of [1, 2, 3]) ledger.record(n);
    ledger.exporting([1, 2, 3]);
    expect(ledger.take()).toEqual([1, 2]);
  });
});

describe('otlpHttpTarget', () => {
  it('appends /v1/<signal> to the base endpoint and takes the signal endpoint as written', () => {
    expect(otlpHttpTarget({}, 'traces').url).toBe('http://localhost:4318/v1/traces');
    expect(otlpHttpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, 'logs').url).toBe(
      'http://c:4318/v1/logs',
    );
    expect(
      otlpHttpTarget(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/custom',
        },
        'traces',
      ).url,
    ).toBe('https://t.example/custom');
  });

  it('reads headers, the signal’s over the common ones, values URL-decoded', () => {
    expect(
      otlpHttpTarget(
        {
          OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc, x-team=a,broken',
          OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'x-team=b',
        },
        'logs',
      ).headers,
    ).toEqual({ authorization: 'Bearer abc', 'x-team': 'b' });
  });
});
