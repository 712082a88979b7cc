// The gateway as the operator runs it (issue 40's black-box case): the CLI with `--listen`, a
// bearer token and a stdio upstream child, telemetry exported to a local OTLP receiver, and
// OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT=false. A caller's traceparent was replaced by
// the proxy's, but its baggage (`tenant=victim,role=admin`) still reached the upstream. Run
// `npm run build` first. Listed in docs/security.md's attack table.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';
import { startCli, telemetryEnv } from './cli-process.js';
import { TENANT_SERVER } from './tenant-harness.js';

const TOKEN = `tok-${randomUUID()}`;
const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';

/** One tools/call of "meta" in a session of its own: the `_meta` the upstream received. */
async function upstreamMeta(url: string, meta: Record<string, string>): Promise<unknown> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${TOKEN}`,
  };
  const send = async (body: unknown): Promise<string> => {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    headers['mcp-session-id'] ??= res.headers.get('mcp-session-id') ?? '';
    return res.text();
  };
  await send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'victim-impersonator', version: '1' },
    },
  });
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const text = await send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'meta', arguments: {}, _meta: meta },
  });
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
  const answer = JSON.parse(data) as { result?: { content?: Array<{ text?: string }> } };
  return JSON.parse(answer.result?.content?.[0]?.text ?? 'null');
}

describe('the CLI with OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT=false', () => {
  let cli: ReturnType<typeof startCli> | undefined;
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await cli?.stop();
    cli = undefined;
    await receiver?.close();
    receiver = undefined;
  });

  it('sends the upstream the proxy’s own trace context and none of the caller’s baggage', async () => {
    receiver = await startOtlpReceiver();
    cli = startCli(
      [
        '--listen',
        '127.0.0.1:0',
        '--auth-token-env',
        'PROXY_TOKEN',
        '--',
        process.execPath,
        TENANT_SERVER,
      ],
      {
        ...telemetryEnv(receiver),
        PROXY_TOKEN: TOKEN,
        OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT: 'false',
      },
    );
    const seen = (await upstreamMeta(await cli.listening, {
      traceparent: `00-${CALLER_TRACE}-b7ad6b7169203331-01`,
      tracestate: 'victim=1',
      baggage: 'tenant=victim,role=admin',
      'vendor.example/kept': 'yes',
    })) as Record<string, unknown>;
    expect(seen['vendor.example/kept']).toBe('yes');
    expect(seen.baggage).toBeUndefined();
    expect(seen.tracestate).toBeUndefined();
    // The proxy's CLIENT span parents the upstream, in a trace of the proxy's own.
    expect(seen.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(String(seen.traceparent)).not.toContain(CALLER_TRACE);
    expect(JSON.stringify(seen)).not.toContain('victim');
  });
});
