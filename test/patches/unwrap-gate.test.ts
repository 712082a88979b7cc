/**
 * Another instrumentation that wraps the `request` a subclass inherits, the way
 * `InstrumentationBase._wrap` does it (Traceloop's `manuallyInstrument({ Client })` is one):
 * this package's patch of `Protocol.prototype` stays, the other wrapper wraps it, and this
 * package's own disable() still removes it. The real Traceloop package is run in
 * test/packaging/coexist.test.ts.
 */
import { DiagLogLevel, SpanKind, diag, type DiagLogger } from '@opentelemetry/api';
import { InstrumentationBase, isWrapped } from '@opentelemetry/instrumentation';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Protocol from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as v1Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, McpServer, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();

type AnyFn = (this: unknown, ...args: unknown[]) => unknown;

/** An instrumentation that wraps `Client.prototype.request` and counts the calls it sees. */
class SubclassWrapper extends InstrumentationBase {
  calls = 0;
  constructor() {
    super('subclass-wrapper', '1.0.0', { enabled: false });
  }
  protected init(): [] {
    return [];
  }
  wrapClient(): void {
    const count = (): void => void this.calls++;
    this._wrap(
      Client.prototype as unknown as Record<'request', AnyFn>,
      'request',
      (original: AnyFn) =>
        function (this: unknown, ...args: unknown[]): unknown {
          count();
          return original.apply(this, args);
        },
    );
  }
  unwrapClient(): void {
    this._unwrap(Client.prototype as unknown as Record<'request', AnyFn>, 'request');
  }
}

/** The debug lines of the diag API while `fn` runs. */
async function debugLines(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const logger: DiagLogger = {
    debug: (...args: unknown[]) => void lines.push(args.join(' ')),
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    verbose: () => undefined,
  };
  diag.setLogger(logger, DiagLogLevel.DEBUG);
  try {
    await fn();
  } finally {
    diag.disable();
  }
  return lines;
}

/** One tool call; the `_meta` the tool saw. */
async function callOnce(): Promise<Record<string, unknown> | undefined> {
  const server = new McpServer({ name: 's', version: '1' });
  let seen: Record<string, unknown> | undefined;
  server.registerTool('t', {}, async (extra) => {
    seen = extra._meta;
    return { content: [] };
  });
  const { client, close } = await connectPair(server);
  t.reset();
  await client.callTool({ name: 't', arguments: {} });
  await close();
  return seen;
}

afterEach(() => {
  // What the other instrumentation's unwrap leaves on the subclass, so each test starts clean.
  Reflect.deleteProperty(Client.prototype, 'request');
});

describe('an unwrap through a subclass (UnwrapGate)', () => {
  it('keeps the patch of Protocol.prototype.request; the other wrapper wraps it and the call is traced once', async () => {
    const other = new SubclassWrapper();
    const lines = await debugLines(async () => other.wrapClient());
    expect(isWrapped(Protocol.prototype.request)).toBe(true);
    expect(lines.filter((l) => l.includes('Protocol.prototype.request'))).toHaveLength(1);
    expect(lines.join('\n')).toContain('kept the patch of Protocol.prototype.request');

    const meta = await callOnce();
    expect(other.calls).toBeGreaterThan(0);
    const client = t
      .finished()
      .filter((s) => s.name === 'tools/call t' && s.kind === SpanKind.CLIENT);
    expect(client).toHaveLength(1);
    const { traceId, spanId } = client[0]!.spanContext();
    expect(meta?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    other.unwrapClient();
    expect(isWrapped(Protocol.prototype.request)).toBe(true);
  });

  it("still lets this package's own disable() remove the patch, and enable() put it back", async () => {
    new SubclassWrapper().wrapClient();
    Reflect.deleteProperty(Client.prototype, 'request');
    t.instrumentation.disable();
    expect(isWrapped(Protocol.prototype.request)).toBe(false);
    expect(isWrapped(v1Mcp.McpServer.prototype.registerTool)).toBe(false);
    t.instrumentation.enable();
    t.instrumentation._patchLoaded({ v1Protocol, v1Mcp });
    expect(isWrapped(Protocol.prototype.request)).toBe(true);
    const meta = await callOnce();
    expect(meta?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it('a second wrap by the other instrumentation does not stack a second client span', async () => {
    const other = new SubclassWrapper();
    other.wrapClient();
    // Its own wrapper is now the own property; a re-wrap unwraps that one, not this package's.
    other.wrapClient();
    await callOnce();
    expect(
      t.finished().filter((s) => s.name === 'tools/call t' && s.kind === SpanKind.CLIENT),
    ).toHaveLength(1);
    expect(isWrapped(Protocol.prototype.request)).toBe(true);
  });
});
