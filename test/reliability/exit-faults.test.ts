// tier: timed (each exit is held to a bound against a healthy run started at the same moment)
/**
 * A bounded exit whatever the collector does (docs/operations.md, "When the collector is down"):
 * real child processes under the register entry, exporting OTLP/HTTP to a faulty collector on
 * 127.0.0.1, with the OpenTelemetry defaults and with short intervals. Each run is compared with
 * the same run exporting to a healthy collector, started at the same moment: its output (the
 * failure objects are the instrumentation's) and its time (on an idle machine a healthy run ends
 * 0.1-0.2 s after one under OTEL_SDK_DISABLED=true; on a loaded one, loading the SDK costs far
 * more than that, and it is not the exit's cost).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { runtimes } from '../helpers/runtimes.js';
import { binPath } from '../../scripts/workspace.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The documented promises: refused adds at most 1 s; any other fault at most 5 s. */
const REFUSED_MS = 1_000;
const FAULT_MS = 5_000;
/** Margin for a shared, loaded test machine (start-up jitter of two Node processes). */
const MARGIN_MS = 1_000;

type Fault = 'refused' | 'stuck' | 'slow' | '503';
const FAULTS: Fault[] = ['refused', 'stuck', 'slow', '503'];

interface Collector {
  url: string;
  /** TCP connections the collector accepted. */
  connections: number;
  close(): Promise<void>;
}

/** A collector with `fault`: nothing listens, never answers, 200 after 3 s, or 503 at once. */
async function startCollector(fault: Fault): Promise<Collector> {
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (fault === 'stuck') return;
      if (fault === '503') {
        res.writeHead(503).end();
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, 3_000);
      timers.add(timer);
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  // Refused: the port was bound a moment ago and nothing listens on it any more.
  if (fault === 'refused') await close();
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: fault === 'refused' ? () => Promise.resolve() : close,
  };
}

const SHORT = {
  OTEL_METRIC_EXPORT_INTERVAL: '500',
  OTEL_METRIC_EXPORT_TIMEOUT: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
};

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `app` under the register entry until it ends by itself; SIGKILLed after 30 s. */
/** Where a setup runs: the Node.js binary and the folder whose OpenTelemetry line it resolves. */
interface Place {
  node: string;
  cwd: string;
}
const HERE: Place = { node: process.execPath, cwd: root };

function run(app: string, env: Record<string, string>, place: Place = HERE): Promise<Run> {
  const base = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('OTEL_')) delete base[name];
  return new Promise((resolve) => {
    const began = Date.now();
    const child = spawn(
      place.node,
      [
        '--import',
        join(root, 'register', 'index.mjs'),
        join(root, 'test', 'fixtures', 'apps', app),
      ],
      {
        cwd: place.cwd,
        env: { ...base, NODE_OPTIONS: '', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...env },
      },
    );
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - began });
    });
  });
}

/** The lines about telemetry not delivered, of the register entry or the proxy executable. */
const lossLines = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((line) =>
      /^(@omcp\/instrumentation-mcp\/register|mcp-failure-proxy): telemetry /.test(line),
    );

const node24 = runtimes().find((r) => r.major === 24)!;
const SETUPS: Array<{
  name: string;
  app: string;
  processes: number;
  place?: Place;
  line: string;
  env?: Record<string, string>;
}> = [
  {
    name: 'one process (client and server in memory)',
    app: 'fault-app.mjs',
    processes: 1,
    line: '2.x',
  },
  {
    name: 'a client whose stdio server is also under the register entry',
    app: 'stdio-client-app.mjs',
    processes: 2,
    line: '2.x',
  },
  {
    name: 'one process on Node.js 24 with OpenTelemetry JS 3.x (test/fixtures/otel-3.x)',
    app: 'fault-app.mjs',
    processes: 1,
    place: { node: node24.node, cwd: join(root, 'test', 'fixtures', 'otel-3.x') },
    line: '3.x',
  },
  {
    name: 'a client whose stdio server is also under the register entry, on Node.js 24 with OpenTelemetry JS 3.x',
    app: 'stdio-client-app.mjs',
    processes: 2,
    place: { node: node24.node, cwd: join(root, 'test', 'fixtures', 'otel-3.x') },
    line: '3.x',
  },
  {
    name: 'a client that reaches its stdio server through the relaying proxy executable',
    app: 'stdio-client-app.mjs',
    processes: 2,
    line: '2.x',
    env: { PROXY_CLI: binPath('mcp-failure-proxy') },
  },
];

const collectors = new Map<Fault, Collector>();
let healthy: OtlpReceiver;
beforeAll(async () => {
  healthy = await startOtlpReceiver();
  for (const fault of FAULTS) collectors.set(fault, await startCollector(fault));
});
afterAll(async () => {
  await healthy.close();
  for (const collector of collectors.values()) await collector.close();
});

describe.each(SETUPS)('$name', ({ app, processes, place, line, env: setup = {} }) => {
  const cells = FAULTS.flatMap((fault) =>
    (['defaults', 'short intervals'] as const).map((intervals) => ({ fault, intervals })),
  );
  const references = new Map<string, Run>();
  const runs = new Map<string, Run>();
  const key = (fault: Fault, intervals: string): string => `${fault}/${intervals}`;

  beforeAll(async () => {
    // One interval setting at a time, its four faults and the healthy run at once: each run
    // is compared with one that saw the same load.
    for (const intervals of ['defaults', 'short intervals'] as const) {
      const env = { ...setup, ...(intervals === 'short intervals' ? SHORT : {}) };
      const [reference, ...faulty] = await Promise.all([
        run(app, { OTEL_EXPORTER_OTLP_ENDPOINT: healthy.url, ...env }, place),
        ...FAULTS.map((fault) =>
          run(app, { OTEL_EXPORTER_OTLP_ENDPOINT: collectors.get(fault)!.url, ...env }, place),
        ),
      ]);
      references.set(intervals, reference!);
      FAULTS.forEach((fault, i) => runs.set(key(fault, intervals), faulty[i]!));
    }
  }, 120_000);

  it('with a healthy collector: normal end, and nothing said about losses', () => {
    for (const reference of references.values()) {
      expect([reference.code, reference.signal]).toEqual([0, null]);
      expect(reference.stdout).toMatch(/done\n$/);
      expect(lossLines(reference.stderr)).toEqual([]);
      expect(reference.stderr).toContain(`OpenTelemetry JS ${line} started`);
    }
  });

  it.each(cells)(
    '$fault collector, $intervals: ends by itself within the bound, same output, one line per process',
    ({ fault, intervals }) => {
      const r = runs.get(key(fault, intervals))!;
      const reference = references.get(intervals)!;
      expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
      expect(r.stdout).toBe(reference.stdout);
      const delta = r.ms - reference.ms;
      expect(delta).toBeLessThan((fault === 'refused' ? REFUSED_MS : FAULT_MS) + MARGIN_MS);
      // One line per process, saying what is dropped and that the process ends without it.
      const lines = lossLines(r.stderr);
      expect(lines).toHaveLength(processes);
      for (const line of lines)
        expect(line).toMatch(
          fault === 'refused'
            ? /telemetry dropped, never confirmed by the collector: .*refused the connection/
            : fault === '503'
              ? /telemetry dropped, never confirmed by the collector: .*answered HTTP 503/
              : /telemetry flush stopped after \d+ ms; the process ends without .*did not answer within/,
        );
      expect(r.stderr).not.toContain('going on without it');
      expect(r.stderr).not.toContain('telemetry flush failed');
    },
  );
});

describe('a collector that accepts and never answers', () => {
  it('gets at most one connection per signal and process: one export on the wire per signal', () => {
    // 2 interval settings x every setup's telemetry processes; 3 signals each.
    const processes = SETUPS.reduce((sum, setup) => sum + setup.processes, 0);
    expect(collectors.get('stuck')!.connections).toBeLessThanOrEqual(2 * processes * 3);
  });
});
