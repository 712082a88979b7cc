/**
 * Which OpenTelemetry JS line the zero-code entry starts on: the application's sdk-node when the
 * api fits its line (a mismatch is one line with its fix, said before sdk-node is loaded), else
 * the application's sdk-trace-node with the OTLP trace exporter it installed. On real installs of
 * each line: test/packaging/lines-grid.test.ts.
 */
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../observability/helpers.js';
import { lineMismatch, lineOfApi, loadTracesOnly } from '../../src/register/start.js';

describe('zero-code entry: the application line', () => {
  it('reads the line from the api: 1.10 is 3.x, 1.9 and before 2.x', () => {
    expect(lineOfApi('1.9.1')).toBe('2.x');
    expect(lineOfApi('1.3.0')).toBe('2.x');
    expect(lineOfApi('1.10.0')).toBe('3.x');
  });

  it('names a 3.x sdk-node under a 2.x api, and both fixes; pairs that fit say nothing', () => {
    expect(lineMismatch('0.301.0', '3.x', '1.9.1')).toBe(
      '@opentelemetry/sdk-node 0.301.0 (OpenTelemetry JS 3.x) needs @opentelemetry/api 1.10, found 1.9.1 (2.x); to run the 3.x line: npm install @opentelemetry/api@1.10; to stay on 2.x: npm install @opentelemetry/sdk-node@0.223',
    );
    expect(lineMismatch('0.301.0', '3.x', '1.10.0')).toBeUndefined();
    expect(lineMismatch('0.223.0', '2.x', '1.9.1')).toBeUndefined();
    expect(lineMismatch('0.301.0', '3.x', undefined)).toBeUndefined();
  });

  it('takes the design card stack from where the application resolves it', () => {
    const from = [join(ROOT, 'package.json')];
    const json = loadTracesOnly(from, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(json?.NodeTracerProvider).toBe(NodeTracerProvider);
    expect(json?.exporter?.name).toBe('@opentelemetry/exporter-trace-otlp-http');
    expect(json?.exporter?.Exporter).toBe(JsonTraceExporter);
    // The signal's own variable wins; unset, the first exporter installed (protobuf, the default).
    expect(
      loadTracesOnly(from, {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      })?.exporter?.name,
    ).toBe('@opentelemetry/exporter-trace-otlp-http');
    expect(loadTracesOnly(from, {})?.exporter?.Exporter).toBe(ProtobufTraceExporter);
    // A protocol no OTLP exporter speaks: no exporter, and the entry says so.
    expect(
      loadTracesOnly(from, { OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })?.exporter,
    ).toBeUndefined();
  });
});
