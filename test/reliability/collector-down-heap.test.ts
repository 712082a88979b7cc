/**
 * A collector that is down costs the running application no memory growth: many in-process
 * calls, half failing, under the register entry with short intervals, against a collector that
 * refuses and one that accepts and never answers. The heap after a full GC stays where it was
 * after the first quarter: what waits for the collector is bounded by the batch queues.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** 8,000 in `npm test`; `OMCP_HEAP_CALLS=40000` for the figure docs/operations.md gives. */
const CALLS = Number(process.env.OMCP_HEAP_CALLS) || 8_000;
/** Growth allowed between the second and the last measurement (GC and JIT noise). */
const GROWTH_MB = 5;

interface Heap {
  code: number | null;
  heapMB: number[];
  stderr: string;
}

function run(endpoint: string): Promise<Heap> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        '@omcp/instrumentation-mcp/register',
        'test/fixtures/apps/heap-app.mjs',
      ],
      {
        cwd: root,
        env: {
          ...env,
          NODE_OPTIONS: '',
          HEAP_CALLS: String(CALLS),
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_METRIC_EXPORT_INTERVAL: '500',
          OTEL_METRIC_EXPORT_TIMEOUT: '400',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      },
    );
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000 + CALLS * 5);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      const heapMB = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { heapMB: number }).heapMB);
      resolve({ code, heapMB, stderr });
    });
  });
}

let stuck: Server;
let refusedUrl: string;
beforeAll(async () => {
  stuck = createServer((req) => req.resume());
  await new Promise<void>((resolve) => stuck.listen(0, '127.0.0.1', resolve));
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  refusedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(async () => {
  stuck.closeAllConnections();
  await new Promise((resolve) => stuck.close(resolve));
});

describe('a collector that is down, while the application runs', () => {
  it(
    `${CALLS} calls against a refusing and a silent collector: the heap stays flat`,
    async () => {
      const stuckUrl = `http://127.0.0.1:${(stuck.address() as AddressInfo).port}`;
      const runs = await Promise.all([run(refusedUrl), run(stuckUrl)]);
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.heapMB).toHaveLength(4);
        expect(r.heapMB[3]! - r.heapMB[1]!).toBeLessThan(GROWTH_MB);
        // And what was dropped is said, once.
        expect(r.stderr.match(/telemetry (dropped|flush stopped)/g)).toHaveLength(1);
      }
    },
    150_000 + CALLS * 5,
  );
});
