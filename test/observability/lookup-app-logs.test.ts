/**
 * The server's own log lines in the failure chain: an MCP server logs with pino 10.4 and winston
 * 3.19 under OpenTelemetry's instrumentations (test/fixtures/app-logs/), which stamp each line
 * with the active trace and span and send it over OTLP. `mcp-failures lookup <correlationId>
 * --file` prints those lines beside the chain, in time order, with the span they were written in
 * (the `tools/call` server span), together with the package's own failure record.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { repoPath, run, tempDir } from './helpers.js';
import { binPath } from '../../scripts/workspace.mjs';

const app = repoPath('test/fixtures/app-logs/server-app.cjs');
let receiver: OtlpReceiver;
let correlationId = '';
let file = '';

beforeAll(async () => {
  if (!existsSync(repoPath('test/fixtures/app-logs/node_modules/pino')))
    throw new Error(
      'test/fixtures/app-logs is not installed: run node scripts/install-fixtures.mjs',
    );
  receiver = await startOtlpReceiver();
  const { stdout } = await promisify(execFile)(process.execPath, [app], {
    cwd: repoPath('.'),
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'none',
    },
  });
  correlationId = /correlationId=([0-9a-f]{32})/.exec(stdout)?.[1] ?? '';
  file = join(tempDir('app-logs'), 'otlp.jsonl');
  writeFileSync(file, `${[...receiver.traceBodies, ...receiver.logBodies].join('\n')}\n`);
});

afterAll(async () => {
  await receiver?.close();
});

describe("the server's own log lines beside the chain", () => {
  it('pino and winston lines carry the trace ID that is the correlationId', () => {
    expect(correlationId).toMatch(/^[0-9a-f]{32}$/);
    const bodies = receiver.logs.filter((l) => l.traceId === correlationId).map((l) => l.body);
    expect(bodies).toEqual(
      expect.arrayContaining([
        'pino: asking the weather upstream',
        'winston: upstream answered slowly',
      ]),
    );
  });

  it('lookup <correlationId> --file prints them in time order, in the tools/call span, with the failure record', async () => {
    const r = await run(process.execPath, [
      binPath('mcp-failures'),
      'lookup',
      correlationId,
      '--file',
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const logs = r.stdout.slice(r.stdout.indexOf('logs ('));
    const lines = logs.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^logs \(\d+, in time order\):$/);
    const pino = lines.findIndex((l) => l.includes('pino: asking the weather upstream'));
    const winston = lines.findIndex((l) => l.includes('winston: upstream answered slowly'));
    const failure = lines.findIndex((l) =>
      l.includes(
        `tools/call forecast failed (reliability/retryable_transient_error, correlationId ${correlationId})`,
      ),
    );
    expect(pino, logs).toBeGreaterThan(0);
    expect(winston, logs).toBeGreaterThan(pino);
    // The package's failure record is written when the response leaves, after the tool's lines.
    expect(failure, logs).toBeGreaterThan(winston);
    for (const i of [pino, winston])
      expect(lines[i]).toMatch(/\[forecast-server\] {2}in tools\/call forecast: /);
    expect(lines[pino]).toMatch(/ info /i);
    expect(lines[winston]).toMatch(/ warn /i);
  });
});
