import { ROOT_CONTEXT, TraceFlags, trace, type SpanContext } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { parentFor } from '../../src/server/parenting.js';

const span = (traceId: string): SpanContext => ({
  traceId,
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
});
const http = span('a'.repeat(32));
const caller = span('b'.repeat(32));
const ambient = trace.setSpanContext(ROOT_CONTEXT, http);
const remote = trace.setSpanContext(ROOT_CONTEXT, caller);

describe('parentFor (server span parenting)', () => {
  it('without incoming context: the ambient context, no links', () => {
    expect(parentFor(ambient, undefined, true)).toEqual({
      parent: ambient,
      links: undefined,
      root: false,
    });
    expect(parentFor(ambient, ROOT_CONTEXT, false).parent).toBe(ambient);
  });

  it('trusted: the caller is the parent, the transport span of another trace a link', () => {
    const p = parentFor(ambient, remote, true);
    expect(p.parent).toBe(remote);
    expect(p.links).toEqual([{ context: http }]);
    expect(p.root).toBe(false);
    expect(parentFor(remote, remote, true).links).toBeUndefined();
  });

  it('untrusted: a new root trace linking both, the caller cannot choose the trace ID', () => {
    const p = parentFor(ambient, remote, false);
    expect(p.root).toBe(true);
    expect(trace.getSpanContext(p.parent)).toBeUndefined();
    expect(p.links).toEqual([{ context: caller }, { context: http }]);
    expect(parentFor(ROOT_CONTEXT, remote, false).links).toEqual([{ context: caller }]);
  });
});
