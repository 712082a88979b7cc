/**
 * A failure whose trace the sampler dropped: the server runs with `always_off`, so no span is
 * exported, yet the client's `correlationId` is still the (non-recording) span's trace ID and the
 * failure log record carries it. `mcp-failures lookup` finds the failure from that record and
 * says the trace was not sampled.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { lookupCli, runFailingApp, tempDir } from './helpers.js';

let receiver: OtlpReceiver;
let correlationId = '';

const lookup = lookupCli;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  correlationId = await runFailingApp(receiver.url, {
    OTEL_SERVICE_NAME: 'unsampled-fixture',
    OTEL_TRACES_SAMPLER: 'always_off',
    OTEL_LOGS_EXPORTER: 'otlp',
  });
  const deadline = Date.now() + 10_000;
  while (!receiver.logs.some((l) => l.traceId === correlationId) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
});

afterAll(async () => {
  await receiver?.close();
});

describe('a failure under always_off', () => {
  it('keeps a trace-ID correlationId, no span, and a log record with that trace ID', () => {
    expect(correlationId).toMatch(/^[0-9a-f]{32}$/);
    expect(receiver.spans.filter((s) => s.traceId === correlationId)).toEqual([]);
    const record = receiver.logs.find((l) => l.traceId === correlationId);
    expect(record?.attributes['mcp.tool.failure.correlation_id']).toBe(correlationId);
  });

  it('mcp-failures lookup finds it from the log record and says the trace was not sampled', async () => {
    const file = join(tempDir('unsampled'), 'telemetry.jsonl');
    writeFileSync(file, `${[...receiver.traceBodies, ...receiver.logBodies].join('\n')}\n`);
    const found = await lookup('lookup', correlationId, '--file', file);
    expect(found.err).toBe('');
    expect(found.code).toBe(0);
    expect(found.out).toContain(`trace ${correlationId}: not sampled`);
    expect(found.out).toContain('database unreachable');
    expect(found.out).toContain('mcp.tool.failure.class: reliability');
    const json = await lookup('lookup', correlationId, '--file', file, '--json');
    expect(JSON.parse(json.out)).toMatchObject([{ correlationId, sampled: false }]);
    const missing = await lookup('lookup', '0123456789abcdef0123456789abcdef', '--file', file);
    expect(missing.code).toBe(1);
  });
});
