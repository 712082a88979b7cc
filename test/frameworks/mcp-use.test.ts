/**
 * mcp-use 2.5.2 as users install it: a fresh project from the pinned lock file of
 * test/fixtures/mcp-use, the packed tarball added, on Node.js 22 and 24 (its engines field asks
 * for 22.22.2 or later). Its Node build bundles its own copy of the SDK; the one line of
 * docs/frameworks.md (documented.mjs) imports its unbundled build instead, and under
 * `node --import @omcp/instrumentation-mcp/register` the server's tool calls, driven by the
 * official SDK client over Streamable HTTP on 127.0.0.1, get server spans in the caller's trace
 * and failure objects, the results otherwise unchanged.
 */
import { SpanKind } from '@opentelemetry/api';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import type { ReceivedSpan } from '../helpers/otlp-receiver.js';
import { runtimes } from '../helpers/runtimes.js';
import { setupTelemetry } from '../helpers/telemetry.js';
import {
  REGISTER,
  callToolsOver,
  failureOf,
  otlpEnv,
  startHttpServer,
  useServerProjects,
  withoutFailure,
  type Outcome,
} from './server-install.js';

const t = setupTelemetry();
const RUNTIMES = runtimes().filter((r) => r.major >= 22);
const setup = useServerProjects('mcp-use', RUNTIMES, ['documented.mjs']);

const CALLS = {
  throws: { name: 'boom', arguments: { n: 1 } },
  bad_arguments: { name: 'boom', arguments: { n: 'one' } },
  ok: { name: 'ok', arguments: {} },
};

/** Runs documented.mjs (zero-code when `env` has the OTLP settings) and calls its tools. */
async function run(
  major: number,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ outcomes: Record<string, Outcome>; stderr: string }> {
  const runtime = RUNTIMES.find((r) => r.major === major)!;
  const server = await startHttpServer(
    runtime,
    setup.project(major),
    [...args, 'documented.mjs'],
    { ...env, MCP_USE_ANONYMIZED_TELEMETRY: 'false' },
    'mcp-use-fixture: listening',
  );
  try {
    const outcomes = await callToolsOver(new StreamableHTTPClientTransport(server.url), CALLS);
    return { outcomes, stderr: server.stderr() };
  } finally {
    server.stop();
  }
}

describe.each(RUNTIMES)('Node.js $major', ({ major }) => {
  it('mcp-use 2.5.2 with the documented line: server spans in one trace, failure objects, results unchanged', async () => {
    const service = `mcp-use-node${major}`;
    const plain = await run(major, [], {});
    const traced = await run(major, REGISTER, otlpEnv(setup.receiver.url, service));
    for (const label of Object.keys(CALLS))
      expect(withoutFailure(traced.outcomes[label]), label).toEqual(plain.outcomes[label]);
    const failures = Object.fromEntries(
      Object.entries(traced.outcomes).map(([label, o]) => {
        const f = failureOf(o);
        return [label, f === undefined ? undefined : { class: f.class, code: f.code }];
      }),
    );
    expect(failures).toEqual({
      throws: { class: 'reliability', code: 'internal_error' },
      bad_arguments: { class: 'capability', code: 'invalid_input' },
      ok: undefined,
    });
    for (const label of ['throws', 'bad_arguments']) {
      const traceId = failureOf(traced.outcomes[label])!.correlationId as string;
      const match = (s: ReceivedSpan): boolean =>
        s.serviceName === service && s.kind === 2 && s.traceId === traceId;
      await setup.receiver.waitFor((spans) => spans.some(match), 10_000);
      const server = setup.receiver.spans.find(match)!;
      const client = t
        .finished()
        .find((s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === traceId);
      expect(server.name).toBe('tools/call boom');
      expect(server.parentSpanId).toBe(client?.spanContext().spanId);
      expect(server.attributes['mcp.tool.failure.code']).toBe(failures[label]!.code);
    }
    // Nothing of the server frameworks' hooks shows where they are not installed.
    expect(traced.stderr).not.toMatch(/fastmcp|tmcp/);
  }, 120_000);
});
