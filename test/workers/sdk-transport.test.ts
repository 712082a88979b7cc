/**
 * A remote MCP server on Cloudflare Workers, run on the real workerd: the MCP SDK 1.32.2 server
 * over its web-standard Streamable HTTP transport, instrumented with `instrumentServer()`, its
 * telemetry exported by the application's OpenTelemetry SDK over fetch and flushed with
 * `ctx.waitUntil` (test/fixtures/workers/worker.mjs, the lines
 * docs/configuration.md shows). The Worker is bundled from a fresh project with the packed tarball
 * installed, by `wrangler deploy --dry-run` as users deploy it, and run by miniflare on
 * 127.0.0.1; the official SDK client calls it from a child process started under
 * `node --import @omcp/instrumentation-mcp/register`. Both export OTLP/HTTP JSON to one receiver
 * on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { runtimeOf } from '../helpers/runtimes.js';
import { ROOT } from '../observability/helpers.js';
import { NAME, node, pack } from '../packaging/install.js';
import { failureOf, otlpEnv, withoutFailure, type Outcome } from '../frameworks/server-install.js';
import {
  FIXTURE,
  bundleWorker,
  startWorker,
  workerProject,
  type RunningWorker,
} from './workerd.js';

const WORKER_SERVICE = 'mcp-worker';
const CLIENT_SERVICE = 'worker-caller';
const CALLS = {
  echo: { name: 'echo', arguments: { text: 'hello' } },
  upstream: { name: 'upstream', arguments: {} },
  denied: { name: 'denied', arguments: {} },
};
const SERVER = 2;
const CLIENT = 3;

let receiver: OtlpReceiver;
let project: string;
let bundle: string;
let worker: RunningWorker | undefined;
let outcomes: Record<string, Outcome>;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  project = await workerProject(pack(), ['worker.mjs', 'wrangler.json', 'client.mjs']);
  bundle = await bundleWorker(project);
  worker = await startWorker(bundle, join(project, 'wrangler.json'), {
    OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: WORKER_SERVICE,
  });
  const caller = await node(
    runtimeOf(20),
    project,
    ['--import', `${NAME}/register`, 'client.mjs'],
    {
      ...otlpEnv(receiver.url, CLIENT_SERVICE),
      MCP_URL: new URL('/mcp', worker.url).href,
      MCP_CALLS: JSON.stringify(CALLS),
    },
  );
  if (caller.code !== 0) throw new Error(`the client failed:\n${caller.stdout}\n${caller.stderr}`);
  outcomes = JSON.parse(caller.stdout) as Record<string, Outcome>;
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
});

/** The span of `service` and `kind` in trace `traceId` named `name`, once exported. */
async function spanOf(
  service: string,
  kind: number,
  traceId: string,
  name: string,
): Promise<ReceivedSpan> {
  const match = (s: ReceivedSpan): boolean =>
    s.serviceName === service && s.kind === kind && s.traceId === traceId && s.name === name;
  await receiver.waitFor((spans) => spans.some(match), 10_000);
  return receiver.spans.find(match)!;
}

describe('the MCP SDK 1.32.2 Streamable HTTP transport on workerd, instrumented by hand', () => {
  it('one trace from the client span (zero-code, Node.js) to the Worker’s server span, the failure object’s correlationId its ID', async () => {
    const failures = { upstream: failureOf(outcomes.upstream), denied: failureOf(outcomes.denied) };
    expect(failures.upstream).toMatchObject({ class: 'reliability', retryable: true });
    expect(failures.denied).toMatchObject({
      class: 'governance',
      code: 'permission_denied',
      agentGuidance: 'Ask the user to grant the mail permission.',
    });
    for (const [label, failure] of Object.entries(failures)) {
      const traceId = failure!.correlationId as string;
      expect(traceId, label).toMatch(/^[0-9a-f]{32}$/);
      const name = `tools/call ${CALLS[label as keyof typeof CALLS].name}`;
      const client = await spanOf(CLIENT_SERVICE, CLIENT, traceId, name);
      const server = await spanOf(WORKER_SERVICE, SERVER, traceId, name);
      expect(server.parentSpanId, label).toBe(client.spanId);
      expect(server.attributes['mcp.method.name'], label).toBe('tools/call');
      expect(server.attributes['gen_ai.tool.name'], label).toBe(
        CALLS[label as keyof typeof CALLS].name,
      );
      expect(server.attributes['mcp.tool.failure.class'], label).toBe(failure!.class);
      expect(server.attributes['mcp.tool.failure.code'], label).toBe(failure!.code);
      expect(server.attributes['error.type'], label).toBe('tool_error');
    }
  });

  it('a call that succeeds comes back unchanged, its server span in the client’s trace', async () => {
    expect(withoutFailure(outcomes.echo)).toEqual({
      result: { content: [{ type: 'text', text: 'hello' }] },
    });
    expect(failureOf(outcomes.echo)).toBeUndefined();
    await receiver.waitFor((spans) =>
      spans.some((s) => s.serviceName === WORKER_SERVICE && s.name === 'tools/call echo'),
    );
    const server = receiver.spans.find(
      (s) => s.serviceName === WORKER_SERVICE && s.name === 'tools/call echo',
    )!;
    const client = receiver.spans.find(
      (s) => s.serviceName === CLIENT_SERVICE && s.spanId === server.parentSpanId,
    );
    expect(client?.name).toBe('tools/call echo');
    expect(client?.traceId).toBe(server.traceId);
  });

  it('the Worker’s failure log records arrive in the server span’s trace', async () => {
    for (const label of ['upstream', 'denied'] as const) {
      const failure = failureOf(outcomes[label])!;
      const traceId = failure.correlationId as string;
      const deadline = Date.now() + 10_000;
      while (!receiver.logs.some((l) => l.traceId === traceId) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const record = receiver.logs.find((l) => l.traceId === traceId);
      expect(record?.body, label).toBe(
        `tools/call ${CALLS[label].name} failed (${failure.class as string}/${failure.code as string}, correlationId ${traceId})`,
      );
      expect(record?.attributes['mcp.tool.failure.code'], label).toBe(failure.code);
      expect(record?.attributes['gen_ai.tool.name'], label).toBe(CALLS[label].name);
    }
  });

  it('the bundle sends over fetch: nothing of Node’s http, https or net is imported', () => {
    const text = readFileSync(bundle, 'utf8');
    const imports = [...text.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1]);
    expect(imports.filter((m) => /^(node:)?(http|https|http2|net|tls)$/.test(m!))).toEqual([]);
    expect(text).toContain('FetchTransport');
  });

  it('docs/configuration.md shows lines of the Worker it runs', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const at = doc.indexOf('<!-- user-code: workers -->');
    expect(at).toBeGreaterThan(-1);
    const block = /```js\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
    const documented = block
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('//'));
    const worker = new Set(
      readFileSync(join(FIXTURE, 'worker.mjs'), 'utf8')
        .split('\n')
        .map((l) => l.trim()),
    );
    expect(documented.length).toBeGreaterThan(10);
    for (const line of documented) expect(worker.has(line), `worker.mjs lacks: ${line}`).toBe(true);
  });
});
