// tier: timed (each process ends while its flush is held 1 s on the wire)
/**
 * Each span and log record reaches the collector once, on every way a process ends (issue 40):
 * the exit path resends only what the collector cannot have got. Real child processes under the
 * register entry and under the NodeSDK pattern of docs/operations.md, against a receiver that
 * counts IDs, behind a front that holds each request 1 s, so that the process ends while its
 * flush is on the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  exported,
  runExitApp,
  startSlowFront,
  type ExitPath,
  type ExitRun,
  type ExitSdk,
} from './exit-paths.js';

let receiver: OtlpReceiver;
let front: { url: string; close(): Promise<void> };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  front = await startSlowFront(receiver.url, 1_000);
});

afterAll(async () => {
  await front.close();
  await receiver.close();
});

interface OtlpLogBody {
  resourceLogs?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeLogs?: Array<{ logRecords?: Array<{ spanId?: string; timeUnixNano?: string }> }>;
  }>;
}

/** Every span ID and log record (span ID and time) of `run`, as often as each arrived. */
function arrivals(run: ExitRun): { spans: string[]; logs: string[] } {
  const spans = receiver.spans.filter((s) => s.serviceName === run.service).map((s) => s.spanId);
  const logs: string[] = [];
  for (const raw of receiver.logBodies) {
    for (const rl of (JSON.parse(raw) as OtlpLogBody).resourceLogs ?? []) {
      const service = rl.resource?.attributes?.find((a) => a.key === 'service.name');
      if (service?.value.stringValue !== run.service) continue;
      for (const sl of rl.scopeLogs ?? [])
        for (const l of sl.logRecords ?? []) logs.push(`${l.spanId}@${l.timeUnixNano}`);
    }
  }
  return { spans, logs };
}

const duplicates = (ids: string[]): string[] => ids.filter((id, i) => ids.indexOf(id) !== i);

/** Every call that finished has its spans and records, and nothing arrived twice. */
function expectOnce(run: ExitRun): void {
  const got = exported(receiver, run);
  expect(run.finished.length).toBeGreaterThan(0);
  for (const call of got.calls) {
    expect(call.spanKinds).toEqual([2, 3]);
    expect(call.logRecords).toBeGreaterThan(0);
  }
  const { spans, logs } = arrivals(run);
  expect(duplicates(spans)).toEqual([]);
  expect(duplicates(logs)).toEqual([]);
}

const CASES: Array<{ sdk: ExitSdk; path: ExitPath; signals?: NodeJS.Signals[] }> = [
  { sdk: 'register', path: 'hook' },
  { sdk: 'register', path: 'signal', signals: ['SIGTERM'] },
  { sdk: 'register', path: 'signal', signals: ['SIGINT'] },
  { sdk: 'register', path: 'exit' },
  { sdk: 'register', path: 'quit' },
  { sdk: 'register', path: 'drain' },
  { sdk: 'register', path: 'throw' },
  { sdk: 'register', path: 'reject' },
  { sdk: 'nodesdk', path: 'signal', signals: ['SIGTERM'] },
  { sdk: 'nodesdk', path: 'flush-then-exit' },
  { sdk: 'nodesdk', path: 'drain' },
  { sdk: 'nodesdk', path: 'throw' },
];

describe('each span and log record arrives once', () => {
  const runs: ExitRun[] = [];
  beforeAll(async () => {
    // Four at a time: each run is a Node process with an SDK; the machine is shared.
    for (let i = 0; i < CASES.length; i += 4)
      runs.push(
        ...(await Promise.all(
          CASES.slice(i, i + 4).map((c) => runExitApp(c.sdk, c.path, front.url, c.signals ?? [])),
        )),
      );
    // The front holds each request 1 s: let the last ones through.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }, 120_000);

  it.each(CASES.map((c, i) => ({ ...c, i, signal: c.signals?.[0] ?? '' })))(
    '$sdk, $path $signal',
    ({ i }) => {
      expectOnce(runs[i]!);
    },
  );

  it('a framework’s exit hook calls process.exit() during the flush: the exit code is its own', () => {
    expect(runs[0]!.code).toBe(0);
  });
});
