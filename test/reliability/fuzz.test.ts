import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import {
  CallToolRequestSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFromParams, injectIntoParams } from '../../src/shared/propagation.js';
import {
  operationAttributes,
  setRequestAttributes,
  targetOf,
} from '../../src/shared/attributes.js';
import {
  classifyError,
  readToolFailure,
  TOOL_FAILURE_META_KEY,
} from '../../packages/tool-failure/src/index.js';
import { Client, InMemoryTransport, Server } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import { fuzzRuns, hostileJson, hostileObject, materialize, prototypeKeys } from './hostile.js';

// npm test runs a slice (~2,000 cases in all); `npm run fuzz` sets FUZZ_RUNS=100000.
const CORE_RUNS = fuzzRuns(1000);
// Each SDK case is two real round trips over hostile data: fewer runs, same variety.
const SDK_RUNS = Math.max(500, Math.round(fuzzRuns(1000) / 20));
/** Generous per-case time (no timing is asserted): only a real hang should hit it. */
const timeoutFor = (runs: number, msPerCase: number): number => Math.max(30_000, runs * msPerCase);
const telemetry = setupTelemetry();
const hostile = fc.oneof(hostileJson, hostileObject);
const protoBefore = prototypeKeys();

function setActive(on: boolean): void {
  // The switch the patches read (`active()`), without unwrapping the SDK's prototypes.
  (telemetry.instrumentation as unknown as { _off: boolean })._off = !on;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

async function settle(p: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await p() };
  } catch (error) {
    return {
      ok: false,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

/** The result as the caller sees it, minus the failure object the server instrumentation adds. */
function comparable(o: Outcome): unknown {
  if (!o.ok) return o;
  const v = o.value as Record<string, unknown>;
  if (typeof v !== 'object' || v === null || !('_meta' in v)) return o;
  const meta = { ...(v._meta as Record<string, unknown>) };
  delete meta[TOOL_FAILURE_META_KEY];
  return { ok: true, value: { ...v, _meta: Object.keys(meta).length === 0 ? undefined : meta } };
}

describe('fuzz: pure cores', () => {
  it(
    'never throw on hostile input and never write to Object.prototype',
    () => {
      fc.assert(
        fc.property(hostile, hostile, (x, y) => {
          const a = materialize(x);
          const b = materialize(y);
          readToolFailure(a);
          readToolFailure({ isError: true, _meta: { [TOOL_FAILURE_META_KEY]: a } });
          classifyError(a);
          extractFromParams(a);
          extractFromParams({ _meta: b });
          operationAttributes(a, 'tools/call', targetOf('tools/call', a), undefined);
          operationAttributes(b, 'prompts/get', targetOf('prompts/get', b), '2025-11-25');
          const sink = trace.getTracer('fuzz').startSpan('fuzz sink');
          setRequestAttributes(sink, 'resources/read', a, b, a);
          setRequestAttributes(sink, 'tools/call', b, a, b);
          sink.end();
          expect(prototypeKeys()).toEqual(protoBefore);
        }),
        { numRuns: CORE_RUNS },
      );
    },
    timeoutFor(CORE_RUNS, 20),
  );

  it(
    "inject copies: the caller's params are never mutated",
    () => {
      const span = trace.wrapSpanContext({
        traceId: '1'.repeat(32),
        spanId: '2'.repeat(16),
        traceFlags: 1,
      });
      const ctx = trace.setSpan(ROOT_CONTEXT, span);
      fc.assert(
        fc.property(hostileJson, (params) => {
          const before = JSON.stringify(params) ?? 'undefined';
          try {
            injectIntoParams(params, ctx);
          } catch {
            // The shell falls back to the original request when the core cannot copy.
          }
          expect(JSON.stringify(params) ?? 'undefined').toBe(before);
        }),
        { numRuns: CORE_RUNS },
      );
    },
    timeoutFor(CORE_RUNS, 20),
  );
});

/**
 * A request whose hostile `_meta` fails the SDK's own JSON-RPC checks is dropped by the server
 * SDK (reported to `onerror`, never answered), so the caller would wait for its timeout. Over the
 * in-memory pair the harness answers such a request at once with an error, after the SDK and the
 * instrumentation have seen it, the same with the instrumentation on or off: a case then takes
 * milliseconds, not a second, and the timeout stays a backstop for a real hang.
 */
function answerDropped(transport: InstanceType<typeof InMemoryTransport>): void {
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    inner?.call(transport, message, extra);
    let known = true;
    try {
      known =
        isJSONRPCRequest(message) ||
        isJSONRPCNotification(message) ||
        isJSONRPCResultResponse(message) ||
        isJSONRPCErrorResponse(message);
    } catch {
      // The SDK threw on it too (and the caller saw that): nothing to answer.
    }
    const id = (message as { id?: unknown }).id;
    if (known || (typeof id !== 'number' && typeof id !== 'string')) return;
    void transport.send({
      jsonrpc: '2.0',
      id,
      error: { code: -32600, message: 'dropped by the server SDK (harness answer)' },
    });
  };
}

describe('fuzz: through the real SDK', () => {
  let next: unknown;
  let pair: { client: Client; close(): Promise<void> };

  beforeAll(async () => {
    // A scripted low-level server: whatever `next` holds is the tools/call result.
    const server = new Server(
      { name: 'hostile', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(CallToolRequestSchema, () => next as never);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    answerDropped(serverTransport);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientTransport);
    pair = {
      client,
      async close() {
        await client.close();
        await server.close();
      },
    };
  });
  afterAll(async () => {
    setActive(true);
    await pair.close();
  });

  it(
    'hostile results: same outcome with and without the instrumentation',
    async () => {
      await fc.assert(
        fc.asyncProperty(hostile, hostile, async (r, m) => {
          next = materialize(r);
          const meta = materialize(m);
          const call = (): Promise<unknown> =>
            pair.client.callTool(
              { name: 't', arguments: {}, _meta: meta as Record<string, unknown> },
              undefined,
              // Some hostile _meta values make the SDK itself drop the request: do not wait 60 s.
              { timeout: 1_000 },
            );
          setActive(false);
          const plain = await settle(call);
          setActive(true);
          const traced = await settle(call);
          expect(comparable(traced)).toEqual(comparable(plain));
          expect(prototypeKeys()).toEqual(protoBefore);
        }),
        { numRuns: SDK_RUNS },
      );
    },
    timeoutFor(SDK_RUNS, 100),
  );

  it('keeps working after the hostile cases', async () => {
    next = { content: [{ type: 'text', text: 'fine' }] };
    telemetry.reset();
    await context.with(ROOT_CONTEXT, () => pair.client.callTool({ name: 't', arguments: {} }));
    expect(telemetry.finished().map((s) => s.name)).toContain('tools/call t');
  });
});
