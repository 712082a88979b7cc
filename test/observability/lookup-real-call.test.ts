/**
 * The lookup CLI on telemetry of a real failing call: an MCP app instrumented with zero code
 * exports its spans with the real OTLP/HTTP JSON exporter to a local receiver; the CLI then
 * finds the trace by the correlationId the client saw, through a Jaeger-style API serving
 * exactly those bodies, and in a file holding them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { startFakeJaeger, type FakeJaeger } from './fixtures/fake-jaeger.js';
import { lookupCli, runFailingApp, tempDir } from './helpers.js';

let receiver: OtlpReceiver;
let jaeger: FakeJaeger;
let correlationId = '';

const lookup = lookupCli;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  correlationId = await runFailingApp(receiver.url, { OTEL_SERVICE_NAME: 'lookup-fixture' });
  await receiver.waitFor((spans) => spans.some((s) => s.traceId === correlationId && s.kind === 2));
  jaeger = await startFakeJaeger(receiver.traceBodies);
});

afterAll(async () => {
  await jaeger?.stop();
  await receiver?.close();
});

describe('mcp-failures lookup on a real failing call', () => {
  it('finds the trace by the correlationId the client saw, through the Jaeger API (exit 0)', async () => {
    expect(correlationId).toMatch(/^[0-9a-f]{32}$/);
    const { code, out, err } = await lookup('lookup', correlationId, '--jaeger-url', jaeger.url);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(correlationId);
    expect(out).toContain('tools/call boom');
    expect(out).toContain('reliability');
    expect(out).toContain('internal_error');
    expect(out).toContain('database unreachable');
  });

  it('finds it in a file of the same OTLP JSON, and says not found (exit 1) for another ID', async () => {
    const file = join(tempDir('real-call'), 'traces.jsonl');
    writeFileSync(file, `${receiver.traceBodies.join('\n')}\n`);
    const found = await lookup('lookup', correlationId, '--file', file);
    expect(found.code).toBe(0);
    expect(found.out).toContain('internal_error');
    const missing = await lookup('lookup', '0123456789abcdef0123456789abcdef', '--file', file);
    expect(missing.code).toBe(1);
    expect(missing.err.trimEnd().split('\n')).toHaveLength(1);
  });
});
