import { propagation, trace, type TextMapPropagator } from '@opentelemetry/api';
import { isWrapped } from '@opentelemetry/instrumentation';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();

function server(): McpServer {
  const s = new McpServer({ name: 's', version: '1' });
  s.registerTool('ok', { inputSchema: { n: z.number() } }, async ({ n }) => ({
    content: [{ type: 'text', text: `n=${n}` }],
  }));
  s.registerTool('boom', {}, async () => {
    throw new Error('boom');
  });
  s.registerTool('hostile', {}, async () => {
    const meta = {};
    Object.defineProperty(meta, 'io.modelcontextprotocol/toolFailure', {
      enumerable: true,
      get: () => {
        getterRuns++;
        return { class: 'capability', code: 'x', correlationId: 'c' };
      },
    });
    Object.defineProperty(meta, 'trap', {
      enumerable: true,
      get: () => {
        getterRuns++;
        return 'value';
      },
    });
    return { content: [{ type: 'text', text: 'hostile' }], isError: true, _meta: meta };
  });
  return s;
}

/** How many times the hostile result's getters ran, by anyone. */
let getterRuns = 0;

async function outcomes(): Promise<unknown[]> {
  const { client, close } = await connectPair(server());
  const out: unknown[] = [];
  for (const [name, args] of [
    ['ok', { n: 1 }],
    ['boom', {}],
    ['hostile', {}],
    ['ok', { n: 'bad' }],
  ] as const) {
    try {
      const r = await client.callTool({ name, arguments: args });
      // The instrumentation may add exactly one documented key; compare the rest.
      const meta = { ...(r._meta ?? {}) };
      delete meta['io.modelcontextprotocol/toolFailure'];
      out.push({ ...r, _meta: Object.keys(meta).length > 0 ? meta : undefined });
    } catch (e) {
      out.push({ thrown: (e as Error).message });
    }
  }
  await close();
  return out;
}

describe('the instrumentation never breaks the host application', () => {
  afterEach(() => {
    t.instrumentation.setConfig({});
  });

  it('gives the same results with hooks that throw', async () => {
    const plain = await outcomes();
    t.instrumentation.setConfig({
      requestHook: () => {
        throw new Error('bad request hook');
      },
      responseHook: () => {
        throw new Error('bad response hook');
      },
      errorClassifier: () => {
        throw new Error('bad classifier');
      },
    });
    t.reset();
    expect(await outcomes()).toEqual(plain);
    expect(t.finished().some((s) => s.name === 'tools/call ok')).toBe(true);
  });

  it('gives the same results with a propagator that throws', async () => {
    const plain = await outcomes();
    const broken: TextMapPropagator = {
      inject() {
        throw new Error('inject');
      },
      extract() {
        throw new Error('extract');
      },
      fields: () => ['traceparent'],
    };
    const previous = propagation;
    propagation.setGlobalPropagator(broken);
    try {
      expect(await outcomes()).toEqual(plain);
    } finally {
      propagation.disable();
      const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
      previous.setGlobalPropagator(new W3CTraceContextPropagator());
    }
  });

  it('gives the same results with a tracer provider that throws', async () => {
    const plain = await outcomes();
    const real = trace.getTracerProvider();
    t.instrumentation.setTracerProvider({
      getTracer: () => ({
        startSpan: () => {
          throw new Error('tracer down');
        },
        startActiveSpan: () => {
          throw new Error('tracer down');
        },
      }),
    });
    try {
      expect(await outcomes()).toEqual(plain);
    } finally {
      t.instrumentation.setTracerProvider(real);
    }
  });

  it('never runs getters of a hostile result and never changes what the client gets from it', async () => {
    // The SDK itself reads the getters (its schema check copies the result); the instrumentation
    // must add no read of its own: as many runs with it on as with it off.
    const runs = async (on: boolean): Promise<number> => {
      (t.instrumentation as unknown as { _off: boolean })._off = !on;
      try {
        const { client, close } = await connectPair(server());
        getterRuns = 0;
        const r = await client.callTool({ name: 'hostile', arguments: {} });
        const counted = getterRuns;
        await close();
        expect(r.content).toEqual([{ type: 'text', text: 'hostile' }]);
        expect((r._meta as Record<string, unknown>).trap).toBe('value');
        return counted;
      } finally {
        (t.instrumentation as unknown as { _off: boolean })._off = false;
      }
    };
    const off = await runs(false);
    expect(await runs(true)).toBe(off);
  });

  it('disable() restores the SDK, and enabling again brings the telemetry back', async () => {
    const names = ['connect', 'request', 'setRequestHandler'] as const;
    for (const n of names) expect(isWrapped(Protocol.prototype[n])).toBe(true);
    t.instrumentation.disable();
    for (const n of names) expect(isWrapped(Protocol.prototype[n])).toBe(false);
    expect(isWrapped(v1Mcp.McpServer.prototype.registerTool)).toBe(false);
    t.reset();
    const { client, close } = await connectPair(server());
    const r = await client.callTool({ name: 'boom', arguments: {} });
    await close();
    expect(r._meta).toBeUndefined();
    expect(t.finished()).toEqual([]);
    t.instrumentation.enable();
    t.instrumentation._patchLoaded({ v1Protocol, v1Mcp });
    for (const n of names) expect(isWrapped(Protocol.prototype[n])).toBe(true);
    const again = await connectPair(server());
    await again.client.callTool({ name: 'ok', arguments: { n: 2 } });
    await again.close();
    expect(t.finished().some((s) => s.name === 'tools/call ok')).toBe(true);
  });
});
