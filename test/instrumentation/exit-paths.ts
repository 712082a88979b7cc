import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** How the fixture app ends (`EXIT_PATH` of test/fixtures/apps/exit-app.cjs). */
export type ExitPath =
  'signal' | 'exit' | 'flush-then-exit' | 'throw' | 'reject' | 'quit' | 'drain' | 'hook';

/** Who owns telemetry: the register entry, or the app's own NodeSDK. */
export type ExitSdk = 'register' | 'nodesdk';

export interface ExitRun {
  service: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** The correlationIds (trace IDs) of the calls that finished before the end began. */
  finished: string[];
  /** Milliseconds from the first signal (or `ready`) to the process's end. */
  endMs: number;
}

let runs = 0;

/**
 * Runs the fixture app and ends it by `path`; for `signal`, sends `signals` once it printed
 * `ready`, `gapMs` apart. Never hangs: killed after 30 s.
 */
export function runExitApp(
  sdk: ExitSdk,
  path: ExitPath,
  endpoint: string,
  signals: readonly NodeJS.Signals[] = [],
  gapMs = 5,
): Promise<ExitRun> {
  const service = `exit-${sdk}-${path}-${process.pid}-${++runs}`;
  const args =
    sdk === 'register'
      ? ['--require', '@omcp/instrumentation-mcp/register', 'test/fixtures/apps/exit-app.cjs']
      : ['test/fixtures/apps/exit-app.cjs'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        OTEL_SERVICE_NAME: service,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        // Nothing leaves on a schedule: whatever arrives was sent by the end of the process.
        OTEL_BSP_SCHEDULE_DELAY: '60000',
        OTEL_BLRP_SCHEDULE_DELAY: '60000',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
        EXIT_SDK: sdk,
        EXIT_PATH: path,
      },
    });
    let stdout = '';
    let stderr = '';
    let began = Date.now();
    let signalled = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (signalled || !stdout.includes('ready\n')) return;
      signalled = true;
      began = Date.now();
      signals.forEach((signal, i) => {
        if (i === 0) child.kill(signal);
        else setTimeout(() => child.kill(signal), gapMs * i);
      });
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const finished = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { correlationId: string }).correlationId);
      resolve({ service, code, signal, stderr, finished, endMs: Date.now() - began });
    });
  });
}

/** What the receiver got of one run: per finished call, its span kinds and log records. */
export function exported(
  receiver: OtlpReceiver,
  run: ExitRun,
): { calls: Array<{ spanKinds: number[]; logRecords: number }>; spans: number } {
  const mine = receiver.spans.filter((s) => s.serviceName === run.service);
  return {
    spans: mine.length,
    calls: run.finished.map((traceId) => ({
      spanKinds: mine
        .filter((s) => s.traceId === traceId && s.name === 'tools/call boom')
        .map((s) => s.kind)
        .sort(),
      logRecords: receiver.logs.filter((l) => l.traceId === traceId).length,
    })),
  };
}

/**
 * An OTLP/HTTP front that holds every request `delayMs` before passing it on to `target`: the
 * flush at exit then takes long enough for a second signal to land in the middle of it.
 */
export async function startSlowFront(
  target: string,
  delayMs: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const forward = request(
          `${target}${req.url ?? ''}`,
          { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' } },
          (answer) => {
            answer.resume();
            answer.on('end', () => res.writeHead(answer.statusCode ?? 502).end('{}'));
          },
        );
        forward.on('error', () => res.writeHead(502).end());
        forward.end(Buffer.concat(chunks));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
