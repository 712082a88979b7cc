/**
 * The pure parts of the volume section: the shipped tail-sampling policy as the bench evaluates
 * it (no collector binary here), and the protobuf size of one attribute, checked against the
 * OTLP serializer the exporters use.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { keyValueSize } from '../../bench/lib/volume-bytes.mjs';
import {
  decide,
  fnv1a64,
  probabilisticKeeps,
  shippedPolicies,
} from '../../bench/lib/volume-sampling.mjs';

const utf8 = (s: string): number[] => [...Buffer.from(s, 'utf8')];

describe('the tail-sampling policy as the volume section applies it', () => {
  it('hashes with FNV-1a 64 (the published test vectors)', () => {
    expect(fnv1a64([])).toBe(0xcbf29ce484222325n);
    expect(fnv1a64(utf8('a'))).toBe(0xaf63dc4c8601ec8cn);
    expect(fnv1a64(utf8('foobar'))).toBe(0x85944171f73967e8n);
  });

  it('reads the shipped configuration: failures, errors and retried calls kept, 10 % of the rest', () => {
    const policies = shippedPolicies();
    expect(policies.map((p) => p.type)).toEqual([
      'string_attribute',
      'status_code',
      'numeric_attribute',
      'probabilistic',
    ]);
    const id = '0af7651916cd43dd8448eb211c80319c';
    const failed = decide(id, [
      { status: 0, attributes: { 'mcp.tool.failure.class': 'governance' } },
    ]);
    expect(failed).toMatchObject({ kept: true, matched: ['tool-failures'] });
    expect(decide(id, [{ status: 2, attributes: {} }]).matched).toEqual(['errors']);
    expect(decide(id, [{ status: 0, attributes: { 'mcp.tool.call.attempts': 2 } }]).kept).toBe(
      true,
    );
    expect(decide(id, [{ status: 0, attributes: { 'mcp.tool.call.attempts': 1 } }])).toMatchObject({
      kept: false,
      chance: 0.1,
    });
    expect(
      decide(id, [{ status: 0, attributes: { 'mcp.tool.failure.class': 'other' } }]).kept,
    ).toBe(false);
  });

  it('keeps about 10 % of random trace IDs by the hash', () => {
    let kept = 0;
    let seed = 1;
    const byte = () => (seed = (seed * 16807) % 2147483647) % 256;
    for (let i = 0; i < 4000; i++) {
      const id = Buffer.from(Array.from({ length: 16 }, byte)).toString('hex');
      if (probabilisticKeeps(id, 10)) kept++;
    }
    expect(kept / 4000).toBeGreaterThan(0.08);
    expect(kept / 4000).toBeLessThan(0.12);
  });
});

describe("the size of a failing call's extra attribute", () => {
  it('is what the OTLP protobuf serializer adds for it', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('volume-policy');
    // Long enough that the enclosing messages' length prefixes keep their size (2 bytes from
    // 128 to 16383): the difference is then the attribute alone.
    const base = { 'gen_ai.tool.name': 'fail', padding: 'x'.repeat(300) };
    const extra = {
      key: 'mcp.tool.failure.correlation_id',
      value: '0af7651916cd43dd8448eb211c80319c',
    };
    const a = tracer.startSpan('tools/call fail', { attributes: base, startTime: 1 });
    a.end(2);
    const b = tracer.startSpan('tools/call fail', {
      attributes: { ...base, [extra.key]: extra.value },
      startTime: 1,
    });
    b.end(2);
    const [sa, sb] = exporter.getFinishedSpans();
    if (sa === undefined || sb === undefined) throw new Error('two spans were exported');
    const size = (s: typeof sa): number =>
      ProtobufTraceSerializer.serializeRequest([s])?.length ?? 0;
    expect(size(sb) - size(sa)).toBe(
      keyValueSize({ key: extra.key, value: { stringValue: extra.value } }),
    );
  });
});
