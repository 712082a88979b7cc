/**
 * The register entry loads sdk-node with the exporters and propagators its index requires handed
 * over to load on first use (src/register/lazy-parts.ts): a NodeSDK started from `OTEL_*` loads
 * the exporter it builds, through the same `require`, and no other; what it exports arrives.
 * Each case runs in a child process, whose module cache is its own.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { ROOT, run, tempDir } from '../observability/helpers.js';

/** Loads sdk-node as the register entry does, starts it, ends one span, reports what loaded. */
const CHILD = `
const { createRequire } = require('node:module');
const { requireSelectedOnUse } = require(${JSON.stringify(join(ROOT, 'dist/cjs/register/lazy-parts.js'))});
const from = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});
const path = from.resolve('@opentelemetry/sdk-node');
const loaded = () => [...new Set(Object.keys(require.cache)
  .map((f) => /node_modules\\/(@opentelemetry\\/(?:exporter|propagator|otlp|configuration)[^/]*)\\//.exec(f)?.[1])
  .filter(Boolean))].sort();
const { NodeSDK } = requireSelectedOnUse(createRequire(path), '@opentelemetry/sdk-node', path);
const atLoad = loaded();
const sdk = new NodeSDK({});
sdk.start();
from('@opentelemetry/api').trace.getTracer('t').startSpan('first').end();
// A refused gRPC export rejects the shutdown; what loaded is the report either way.
sdk.shutdown().catch(() => undefined).then(() => {
  process.stdout.write(JSON.stringify({ atLoad, afterStart: loaded() }));
});
`;

interface Report {
  atLoad: string[];
  afterStart: string[];
}

describe('register entry: sdk-node with its exporters loaded on first use', () => {
  let receiver: OtlpReceiver;
  let child: string;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    child = join(tempDir('omcp-lazy-parts-'), 'child.cjs');
    writeFileSync(child, CHILD);
  });
  afterAll(() => receiver.close());

  const start = async (env: Record<string, string>): Promise<Report> => {
    const result = await run(process.execPath, [child], {
      env: {
        ...process.env,
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        ...env,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Report;
  };

  it('loads no exporter or propagator with the index, and only the one OTEL_* selects at start; its spans arrive', async () => {
    const report = await start({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(report.atLoad).toEqual([]);
    expect(report.afterStart).toContain('@opentelemetry/exporter-trace-otlp-http');
    for (const other of [
      '@opentelemetry/exporter-trace-otlp-grpc',
      '@opentelemetry/exporter-trace-otlp-proto',
      '@opentelemetry/exporter-zipkin',
      '@opentelemetry/exporter-prometheus',
      '@opentelemetry/propagator-jaeger',
    ])
      expect(report.afterStart).not.toContain(other);
    await receiver.waitFor((spans) => spans.some((s) => s.name === 'first'));
  });

  it('builds any other exporter OTEL_* names as before (the Jaeger propagator, gRPC)', async () => {
    const report = await start({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_PROPAGATORS: 'tracecontext,jaeger',
    });
    expect(report.afterStart).toEqual(
      expect.arrayContaining([
        '@opentelemetry/exporter-trace-otlp-grpc',
        '@opentelemetry/propagator-jaeger',
      ]),
    );
    expect(report.afterStart).not.toContain('@opentelemetry/exporter-trace-otlp-http');
  });
});
