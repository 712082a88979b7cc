import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildFailureChain,
  formatFailureChain,
  isTraceId,
  jaegerTagSearchUrl,
  parseOtlpJson,
  traceIdsForCorrelationId,
  traceIdsFromTagSearch,
  type ChainNode,
  type LookupSpan,
} from '../../packages/mcp-failures/src/lookup/index.js';
import {
  CUSTOM_CORRELATION_ID,
  GUIDANCE,
  RETRY_NOT_BEFORE,
  recordFailureTraces,
  TOOL,
  type RecordedTraces,
} from './fixtures/failure-trace.js';

let recorded: RecordedTraces;
let spans: LookupSpan[];

beforeAll(async () => {
  recorded = await recordFailureTraces();
  spans = parseOtlpJson(recorded.bodies.join('\n'));
});

function flatten(nodes: ChainNode[]): ChainNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

describe('parseOtlpJson', () => {
  it('reads what the real OTLP/HTTP JSON exporter sends, as JSON lines', () => {
    expect(recorded.bodies.length).toBeGreaterThan(1);
    expect(spans.length).toBe(15);
    const server = spans.find((s) => s.service === 'flights-server' && s.events.length > 0);
    expect(server).toMatchObject({
      kind: 'SERVER',
      name: `tools/call ${TOOL}`,
      status: { code: 'ERROR' },
      attributes: {
        'mcp.tool.failure.class': 'reliability',
        'mcp.tool.failure.retryable': true,
        'mcp.tool.failure.retry_not_before': RETRY_NOT_BEFORE,
      },
    });
    expect(server?.events[0]?.name).toBe('exception');
  });

  it('reads a single document and Jaeger’s {"result": ...} envelope', () => {
    const first = recorded.bodies[0] ?? '';
    const pretty = JSON.stringify(JSON.parse(first), null, 2);
    expect(parseOtlpJson(pretty).length).toBe(parseOtlpJson(first).length);
    const envelope = JSON.stringify({ result: JSON.parse(first) as unknown });
    expect(parseOtlpJson(envelope).length).toBe(parseOtlpJson(first).length);
  });

  it('accepts enum names and base64 IDs (protobuf JSON)', () => {
    const doc = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex').toString(
                    'base64',
                  ),
                  spanId: Buffer.from('b7ad6b7169203331', 'hex').toString('base64'),
                  name: 'tools/call x',
                  kind: 'SPAN_KIND_SERVER',
                  status: { code: 'STATUS_CODE_ERROR' },
                  startTimeUnixNano: '1000000',
                  endTimeUnixNano: '3000000',
                  attributes: [{ key: 'mcp.tool.call.attempt', value: { intValue: '3' } }],
                },
              ],
            },
          ],
        },
      ],
    };
    const [span] = parseOtlpJson(JSON.stringify(doc));
    expect(span).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      kind: 'SERVER',
      status: { code: 'ERROR' },
      attributes: { 'mcp.tool.call.attempt': 3 },
    });
  });

  it('names the first line that is not JSON', () => {
    expect(() => parseOtlpJson(`${recorded.bodies[0]}\n{oops\n`)).toThrow('line 2 is not JSON');
  });
});

describe('finding the trace of a correlationId', () => {
  it('uses the correlationId as trace ID, in any case', () => {
    expect(isTraceId(recorded.failingTraceId)).toBe(true);
    expect(traceIdsForCorrelationId(spans, recorded.failingTraceId.toUpperCase())).toEqual([
      recorded.failingTraceId,
    ]);
  });

  it('finds a non-trace-ID correlationId by the mcp.tool.failure.correlation_id attribute', () => {
    expect(isTraceId(CUSTOM_CORRELATION_ID)).toBe(false);
    expect(traceIdsForCorrelationId(spans, CUSTOM_CORRELATION_ID)).toEqual([
      recorded.customTraceId,
    ]);
  });

  it('finds nothing for an unknown ID', () => {
    expect(traceIdsForCorrelationId(spans, 'ffffffffffffffffffffffffffffffff')).toEqual([]);
    expect(traceIdsForCorrelationId(spans, '00000000000000000000000000000000')).toEqual([]);
  });
});

describe('buildFailureChain', () => {
  it('arranges logical call, attempts, proxy and server, skipping non-MCP spans', () => {
    const chain = buildFailureChain(spans, recorded.failingTraceId);
    expect(chain.spanCount).toBe(11);
    expect(chain.services).toEqual(['flights-server', 'mcp-proxy', 'travel-agent']);
    expect(chain.roots.map((r) => r.role)).toEqual(['call']);
    const roles = flatten(chain.roots).map((n) =>
      n.role === 'attempt' ? `attempt ${n.attempt}` : n.role,
    );
    expect(roles).toEqual([
      'call',
      'attempt 1',
      'proxy-server',
      'proxy-client',
      'server',
      'attempt 2',
      'proxy-server',
      'proxy-client',
      'server',
    ]);
    expect(chain.outcome).toBe('retries_exhausted');
    expect(chain.attempts).toBe(2);
    expect(chain.tool).toBe(TOOL);
  });

  it('reports the failure where the server produced it', () => {
    const { failure } = buildFailureChain(spans, recorded.failingTraceId);
    expect(failure).toMatchObject({
      class: 'reliability',
      code: 'upstream_unavailable',
      retryable: true,
      retryNotBefore: RETRY_NOT_BEFORE,
      correlationId: recorded.failingTraceId,
      agentGuidance: GUIDANCE,
    });
    expect(failure?.span.kind).toBe('SERVER');
    expect(failure?.span.service).toBe('flights-server');
  });
});

describe('formatFailureChain', () => {
  it('prints class, code, guidance, durations, roles and server-side events, no stack trace', () => {
    const text = formatFailureChain(buildFailureChain(spans, recorded.failingTraceId));
    expect(text).toContain(`trace ${recorded.failingTraceId}`);
    expect(text).toContain(
      'failure: reliability / upstream_unavailable (retryable, retry not before 2026-11-30T12:00:30.000Z)',
    );
    expect(text).toContain(`guidance: ${GUIDANCE}`);
    expect(text).toContain('call: outcome retries_exhausted after 2 attempt(s)');
    expect(text).toMatch(
      /client attempt 1: tools\/call search_flights {2}\[CLIENT travel-agent\] {2}\d+\.\d ms {2}ERROR {2}reliability\/upstream_unavailable/,
    );
    expect(text).toContain('proxy (server side): tools/call search_flights  [SERVER mcp-proxy]');
    expect(text).toContain('proxy (client side): tools/call search_flights  [CLIENT mcp-proxy]');
    expect(text).toContain('server: tools/call search_flights  [SERVER flights-server]');
    expect(text).toMatch(
      /event \+\d+\.\d ms exception {2}exception\.type=Error exception\.message=upstream returned 503/,
    );
    expect(text).toMatch(
      /event \+[\d.]+ m?s mcp\.tool\.call\.retry {2}mcp\.tool\.call\.attempt=1 mcp\.tool\.call\.retry\.delay_ms=500/,
    );
    expect(text).not.toContain('POST /mcp');
    expect(text).not.toMatch(/\n\s+at /);
  });
});

describe('Jaeger helpers', () => {
  it('builds the tag search URL in microseconds', () => {
    const url = new URL(
      jaegerTagSearchUrl('http://j:16686/', 'svc', 'req-1', 2_000_000, 1_000_000),
    );
    expect(url.pathname).toBe('/api/traces');
    expect(url.searchParams.get('tags')).toBe('{"mcp.tool.failure.correlation_id":"req-1"}');
    expect(url.searchParams.get('start')).toBe('1000000000');
    expect(url.searchParams.get('end')).toBe('2000000000');
  });

  it('reads trace IDs from the search answer, padding short Jaeger IDs', () => {
    expect(traceIdsFromTagSearch({ data: [{ traceID: 'ABC' }, { nope: 1 }] })).toEqual([
      '00000000000000000000000000000abc',
    ]);
    expect(traceIdsFromTagSearch({ errors: [] })).toEqual([]);
  });
});
