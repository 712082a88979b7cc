import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { exported, runExitApp, startSlowFront, type ExitRun } from './exit-paths.js';

/** Each fixture call fails on the server: a client span, a server span, its failure record. */
const CALL = { spanKinds: [2, 3] };

let receiver: OtlpReceiver;
let front: { url: string; close(): Promise<void> };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // Every export takes 150 ms more, so the flush is still running when a second signal lands.
  front = await startSlowFront(receiver.url, 150);
});

afterAll(async () => {
  await front.close();
  await receiver.close();
});

/** Every call that finished before the end has both spans and at least one log record. */
function expectNothingLost(run: ExitRun): void {
  const got = exported(receiver, run);
  expect(run.finished.length).toBeGreaterThan(0);
  for (const call of got.calls) {
    expect(call.spanKinds).toEqual(CALL.spanKinds);
    expect(call.logRecords).toBeGreaterThan(0);
  }
}

describe('stopping a server under the register entry', () => {
  it('SIGTERM: everything is flushed, then the process ends by SIGTERM', async () => {
    const run = await runExitApp('register', 'signal', front.url, ['SIGTERM']);
    expect([run.code, run.signal]).toEqual([null, 'SIGTERM']);
    expectNothingLost(run);
  });

  it('SIGINT: everything is flushed, then the process ends by SIGINT', async () => {
    const run = await runExitApp('register', 'signal', front.url, ['SIGINT']);
    expect([run.code, run.signal]).toEqual([null, 'SIGINT']);
    expectNothingLost(run);
  });

  it('two SIGTERMs 5 ms apart, 20 times: the second waits for the flush, nothing is lost', async () => {
    const runs: ExitRun[] = [];
    // Five at a time: each run is a Node process with an SDK; the machine is shared.
    for (let batch = 0; batch < 4; batch++)
      runs.push(
        ...(await Promise.all(
          Array.from({ length: 5 }, () =>
            runExitApp('register', 'signal', front.url, ['SIGTERM', 'SIGTERM'], 5),
          ),
        )),
      );
    for (const run of runs) {
      expect([run.code, run.signal]).toEqual([null, 'SIGTERM']);
      expectNothingLost(run);
    }
    // Two signals can reach the process as one (a pending signal is not queued twice); in the
    // others the second landed during the flush, and said so.
    expect(
      runs.filter((run) => run.stderr.includes('SIGTERM during the telemetry flush')).length,
    ).toBeGreaterThan(0);
  }, 180_000);

  it('process.exit(): the batched spans and records go out through the synchronous path; the exit code is kept', async () => {
    const run = await runExitApp('register', 'exit', front.url);
    expect(run.code).toBe(3);
    expectNothingLost(run);
  });

  it('process.exit() inside a tool call: the open spans are ended as errors and sent', async () => {
    const run = await runExitApp('register', 'quit', front.url);
    expect(run.code).toBe(7);
    expectNothingLost(run);
    const quit = receiver.spans.filter(
      (s) => s.serviceName === run.service && s.name === 'tools/call quit',
    );
    expect(quit.map((s) => s.kind).sort()).toEqual([2, 3]);
  });

  it('the event loop runs dry: beforeExit flushes, the exit code is the app’s', async () => {
    const run = await runExitApp('register', 'drain', front.url);
    expect(run.code).toBe(5);
    expectNothingLost(run);
  });

  it('an uncaught exception: what finished is sent; exit code 1, the error printed as without telemetry', async () => {
    const run = await runExitApp('register', 'throw', front.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: fixture crash');
    expectNothingLost(run);
  });

  it('an unhandled rejection: what finished is sent; exit code 1', async () => {
    const run = await runExitApp('register', 'reject', front.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('fixture rejection');
    expectNothingLost(run);
  });
});

describe('stopping a server whose app owns NodeSDK, with the stop pattern of docs/operations.md', () => {
  it('SIGTERM: flushed, then exit 143', async () => {
    const run = await runExitApp('nodesdk', 'signal', front.url, ['SIGTERM']);
    expect(run.code).toBe(143);
    expectNothingLost(run);
  });

  it('SIGINT: flushed, then exit 130', async () => {
    const run = await runExitApp('nodesdk', 'signal', front.url, ['SIGINT']);
    expect(run.code).toBe(130);
    expectNothingLost(run);
  });

  it('two SIGTERMs 5 ms apart: the handler stays installed, the second waits for the same flush', async () => {
    const runs = await Promise.all(
      Array.from({ length: 2 }, () =>
        runExitApp('nodesdk', 'signal', front.url, ['SIGTERM', 'SIGTERM'], 5),
      ),
    );
    for (const run of runs) {
      expect(run.code).toBe(143);
      expectNothingLost(run);
    }
  });

  it('await the flush, then process.exit(): flushed, the exit code is kept', async () => {
    const run = await runExitApp('nodesdk', 'flush-then-exit', front.url);
    expect(run.code).toBe(3);
    expectNothingLost(run);
  });

  it('process.exit() without the flush: nothing batched is exported (what the docs warn of)', async () => {
    const run = await runExitApp('nodesdk', 'exit', front.url);
    expect(run.code).toBe(3);
    expect(run.finished.length).toBeGreaterThan(0);
    expect(exported(receiver, run).spans).toBe(0);
  });

  it('the event loop runs dry: the beforeExit handler flushes, the exit code is the app’s', async () => {
    const run = await runExitApp('nodesdk', 'drain', front.url);
    expect(run.code).toBe(5);
    expectNothingLost(run);
  });

  it('an uncaught exception: the handler flushes, then exit 1', async () => {
    const run = await runExitApp('nodesdk', 'throw', front.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: fixture crash');
    expectNothingLost(run);
  });

  it('an unhandled rejection reaches the same handler: flushed, then exit 1', async () => {
    const run = await runExitApp('nodesdk', 'reject', front.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('fixture rejection');
    expectNothingLost(run);
  });
});
