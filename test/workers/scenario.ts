/**
 * The scenario each Worker of test/fixtures/workers/ is run through: bundled by wrangler from a
 * fresh project with the packed tarball installed, run on workerd, and called by the official
 * SDK client (test/fixtures/workers/client.mjs) in a child process under
 * `node --import @omcp/instrumentation-mcp/register`: a tool that succeeds, one that throws a
 * network error and one that throws a `ToolFailureError`. The Worker and the client export
 * OTLP/HTTP JSON to one receiver on 127.0.0.1.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { runtimeOf } from '../helpers/runtimes.js';
import { NAME, node, pack } from '../packaging/install.js';
import { failureOf, otlpEnv, withoutFailure, type Outcome } from '../frameworks/server-install.js';
import { bundleWorker, startWorker, workerProject, type RunningWorker } from './workerd.js';

const CLIENT_SERVICE = 'worker-caller';
const CALLS = {
  echo: { name: 'echo', arguments: { text: 'hello' } },
  upstream: { name: 'upstream', arguments: {} },
  denied: { name: 'denied', arguments: {} },
};
const SERVER = 2;
const CLIENT = 3;

/** A Worker of the fixture: its module and its wrangler configuration. */
export interface WorkerCase {
  title: string;
  /** The Worker's module, and the wrangler configuration whose `main` it is. */
  files: { worker: string; config: string };
  /** The Worker's `service.name`. */
  service: string;
}

/** The describe block of one Worker: the scenario in `beforeAll`, what it must show in its tests. */
export function describeWorker(c: WorkerCase): void {
  let receiver: OtlpReceiver;
  let project: string | undefined;
  let bundle: string;
  let worker: RunningWorker | undefined;
  let outcomes: Record<string, Outcome>;

  /** The span of `service` and `kind` in trace `traceId` named `name`, once exported. */
  const spanOf = async (
    service: string,
    kind: number,
    traceId: string,
    name: string,
  ): Promise<ReceivedSpan> => {
    const match = (s: ReceivedSpan): boolean =>
      s.serviceName === service && s.kind === kind && s.traceId === traceId && s.name === name;
    await receiver.waitFor((spans) => spans.some(match), 10_000);
    return receiver.spans.find(match)!;
  };

  describe(c.title, () => {
    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      project = await workerProject(pack(), [
        c.files.worker,
        c.files.config,
        'telemetry.mjs',
        'failing-tools.mjs',
        'client.mjs',
      ]);
      bundle = await bundleWorker(project, c.files.config);
      worker = await startWorker(bundle, join(project, c.files.config), {
        OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: c.service,
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
      if (caller.code !== 0)
        throw new Error(`the client failed:\n${caller.stdout}\n${caller.stderr}`);
      outcomes = JSON.parse(caller.stdout) as Record<string, Outcome>;
    }, 120_000);

    afterAll(async () => {
      await worker?.stop();
      await receiver?.close();
      // The project holds a copy of the fixture's install (about 200 MB).
      if (project !== undefined) rmSync(project, { recursive: true, force: true });
    });

    it('one trace from the client span (zero-code, Node.js) to the Worker’s server span, the failure object’s correlationId its ID', async () => {
      const failures = {
        upstream: failureOf(outcomes.upstream),
        denied: failureOf(outcomes.denied),
      };
      expect(failures.upstream).toMatchObject({ class: 'reliability', retryable: true });
      expect(failures.denied).toMatchObject({
        class: 'governance',
        code: 'permission_denied',
        agentGuidance: 'Ask the user to grant the mail permission.',
      });
      for (const [label, failure] of Object.entries(failures)) {
        const traceId = failure!.correlationId as string;
        expect(traceId, label).toMatch(/^[0-9a-f]{32}$/);
        const tool = CALLS[label as keyof typeof CALLS].name;
        const client = await spanOf(CLIENT_SERVICE, CLIENT, traceId, `tools/call ${tool}`);
        const server = await spanOf(c.service, SERVER, traceId, `tools/call ${tool}`);
        expect(server.parentSpanId, label).toBe(client.spanId);
        expect(server.attributes['mcp.method.name'], label).toBe('tools/call');
        expect(server.attributes['gen_ai.tool.name'], label).toBe(tool);
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
      const echo = (s: ReceivedSpan): boolean =>
        s.serviceName === c.service && s.name === 'tools/call echo';
      await receiver.waitFor((spans) => spans.some(echo));
      const server = receiver.spans.find(echo)!;
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
        // On a miss, what did arrive (a record in another trace, or none at all).
        const seen = receiver.logs.map((l) => `${l.traceId ?? '-'} ${String(l.body)}`);
        expect(record?.body, `${label}; received: ${seen.join(' | ') || 'no log records'}`).toBe(
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
  });
}
