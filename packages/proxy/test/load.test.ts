// tier: timed (slow clients are cut off after a deadline, and the memory bound is read under load)
// The proxy under abuse, on loopback: 1,000 concurrent tool calls with mixed failures while
// 10,000 bad requests (foreign Host, wrong token, no session, unknown session) and 100 slow
// clients hit the same mcp-failure-proxy process. Twice, so that a leak would show: every good
// call is answered correctly, every bad request refused, and the proxy's memory (its resident
// set, read from /proc) stays bounded. The figures printed here are the ones in docs/proxy.md.
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type Server as HttpServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { Client, McpServer } from '../../../test/helpers/mcp-v1.js';
import { baseEnv, startCli } from './cli-process.js';

const TOKEN = 'load-test-token-5b0e2c7f9a41d3';
const SESSIONS = 50;
const CALLS_PER_SESSION = 20;
const BAD_REQUESTS = 10_000;
const SLOW_CLIENTS = 100;
/** The proxy's V8 old space is capped here: a leak would end it with an out-of-memory crash. */
const HEAP_CAP_MIB = 96;
const WAVES = 3;
const SHAPES = ['ok', 'reliability', 'governance', 'capability', 'slow'] as const;

/** The failure object the upstream returns for call `n` of a failing shape. */
function failureOf(shape: string, n: number): Record<string, unknown> | undefined {
  if (shape === 'reliability')
    return {
      class: 'reliability',
      code: 'unavailable',
      retryable: true,
      correlationId: `rel-${n}`,
    };
  if (shape === 'governance')
    return {
      class: 'governance',
      code: 'policy_denied',
      retryable: false,
      correlationId: `gov-${n}`,
    };
  if (shape === 'capability')
    return {
      class: 'capability',
      code: 'auth_required',
      retryable: false,
      correlationId: `cap-${n}`,
    };
  return undefined;
}

/** Resident set and its peak of process `pid`, in MiB (Linux /proc). */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

describe.skipIf(process.platform !== 'linux')('proxy under load and abuse', () => {
  let upstream: HttpServer;
  let upstreamUrl: string;
  let proxy: ReturnType<typeof startCli>;
  let url: string;
  let host: string;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const server = new McpServer({ name: 'load-upstream', version: '1' });
      for (const shape of SHAPES)
        server.registerTool(shape, { inputSchema: { n: z.number() } }, async ({ n }) => {
          if (shape === 'slow') await new Promise((r) => setTimeout(r, 50));
          const failure = failureOf(shape, n);
          return failure === undefined
            ? { content: [{ type: 'text' as const, text: `${shape} ${n}` }] }
            : {
                isError: true,
                content: [{ type: 'text' as const, text: `${shape} failed ${n}` }],
                _meta: { [KEY]: failure },
              };
        });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
    proxy = startCli(
      [
        '--listen',
        '127.0.0.1:0',
        '--auth-token-env',
        'PROXY_TOKEN',
        '--max-sessions',
        String(SESSIONS + 10),
        // Generous enough for a good client in this busy test process to write its head after
        // connecting; a slow-loris client is still cut off within the wave.
        '--headers-timeout',
        '8000',
        '--request-timeout',
        '15000',
        '--upstream-url',
        upstreamUrl,
      ],
      { ...baseEnv(), PROXY_TOKEN: TOKEN, NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MIB}` },
    );
    url = await proxy.listening;
    host = new URL(url).host;
  }, 30_000);

  afterAll(async () => {
    await proxy?.stop();
    upstream?.closeAllConnections();
    await new Promise((r) => upstream?.close(r));
  });

  /** SESSIONS clients, CALLS_PER_SESSION calls each, all in flight at once; every answer checked. */
  async function goodCalls(): Promise<number> {
    let correct = 0;
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        const client = new Client({ name: `load-${s}`, version: '1' });
        const transport = new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        });
        await client.connect(transport);
        await Promise.all(
          Array.from({ length: CALLS_PER_SESSION }, async (_, c) => {
            const n = s * CALLS_PER_SESSION + c;
            const shape = SHAPES[n % SHAPES.length] ?? 'ok';
            const r = await client.callTool({ name: shape, arguments: { n } });
            const failure = failureOf(shape, n);
            if (failure === undefined) {
              expect(r.isError).toBeUndefined();
              expect(r.content).toStrictEqual([{ type: 'text', text: `${shape} ${n}` }]);
            } else {
              expect(r.isError).toBe(true);
              expect(r._meta).toStrictEqual({ [KEY]: failure });
            }
            correct += 1;
          }),
        );
        // A well-behaved client ends its session (DELETE); the proxy frees its place at once.
        await transport.terminateSession();
        await client.close();
      }),
    );
    return correct;
  }

  /** BAD_REQUESTS requests in four bad shapes, 100 at a time; resolves to the statuses seen. */
  async function badRequests(): Promise<Record<string, number>> {
    const agent = new Agent({ keepAlive: true, maxSockets: 100 });
    const u = new URL(url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const kinds: Array<{ name: string; headers: Record<string, string>; status: number }> = [
      {
        name: 'bad host',
        headers: { host: 'evil.example', authorization: `Bearer ${TOKEN}` },
        status: 403,
      },
      { name: 'bad token', headers: { host, authorization: 'Bearer wrong-token' }, status: 401 },
      { name: 'no token', headers: { host }, status: 401 },
      { name: 'no session', headers: { host, authorization: `Bearer ${TOKEN}` }, status: 400 },
      {
        name: 'unknown session',
        headers: { host, authorization: `Bearer ${TOKEN}`, 'mcp-session-id': 'no-such-session' },
        status: 404,
      },
    ];
    const seen: Record<string, number> = {};
    let next = 0;
    const one = (i: number): Promise<void> => {
      const kind = kinds[i % kinds.length]!;
      return new Promise((resolve, reject) => {
        const req = request(
          {
            agent,
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...kind.headers,
            },
          },
          (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => {
              const key = `${kind.name} ${res.statusCode}`;
              seen[key] = (seen[key] ?? 0) + 1;
              if (res.statusCode !== kind.status || !text.includes('"jsonrpc":"2.0"'))
                reject(new Error(`${kind.name}: ${res.statusCode} ${text}`));
              else resolve();
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    };
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (next < BAD_REQUESTS) await one(next++);
      }),
    );
    agent.destroy();
    return seen;
  }

  /** SLOW_CLIENTS connections that send their headers a byte at a time and never finish. */
  async function slowClients(): Promise<number> {
    const answers = await Promise.all(
      Array.from(
        { length: SLOW_CLIENTS },
        () =>
          new Promise<string>((resolve) => {
            const u = new URL(url);
            const socket = connect(Number(u.port), u.hostname);
            let data = '';
            const line = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `;
            let i = 0;
            const drip = setInterval(() => {
              if (!socket.destroyed) socket.write(line[i] ?? 'a');
              i += 1;
            }, 100);
            socket.on('data', (d: Buffer) => (data += d.toString()));
            socket.on('close', () => {
              clearInterval(drip);
              resolve(data);
            });
            socket.on('error', () => undefined);
          }),
      ),
    );
    return answers.filter((a) => a.startsWith('HTTP/1.1 408 ')).length;
  }

  it('answers every good call, refuses every bad request, cuts off slow clients, memory bounded', async () => {
    const pid = proxy.pid!;
    const idle = memoryOf(pid);
    const waves: Array<{
      seconds: number;
      peak: number;
      correct: number;
      refused: number;
      cut: number;
    }> = [];
    for (let wave = 0; wave < WAVES; wave += 1) {
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 50);
      const started = performance.now();
      const [correct, seen, cut] = await Promise.all([goodCalls(), badRequests(), slowClients()]);
      clearInterval(sampler);
      peak = Math.max(peak, memoryOf(pid).rss);
      const refused = Object.values(seen).reduce((a, b) => a + b, 0);
      waves.push({ seconds: (performance.now() - started) / 1000, peak, correct, refused, cut });
      expect(correct).toBe(SESSIONS * CALLS_PER_SESSION);
      expect(refused).toBe(BAD_REQUESTS);
      expect(cut).toBe(SLOW_CLIENTS);
    }
    const after = memoryOf(pid);
    console.log(
      `proxy under load: idle RSS ${idle.rss.toFixed(0)} MiB; ` +
        waves
          .map(
            (w, i) =>
              `wave ${i + 1}: ${w.correct} good calls, ${w.refused} refused, ${w.cut} slow cut off in ${w.seconds.toFixed(1)} s, peak RSS ${w.peak.toFixed(0)} MiB`,
          )
          .join('; ') +
        `; after: RSS ${after.rss.toFixed(0)} MiB, high-water ${after.hwm.toFixed(0)} MiB`,
    );
    // Bounded: with its heap capped at HEAP_CAP_MIB the proxy served every wave (a leak of the
    // state of 1,000 calls and 10,000 refusals per wave would have crashed it), and the last
    // wave needed no more memory than the first one plus a margin for the heap's growth policy.
    const first = waves[0]!;
    const last = waves[waves.length - 1]!;
    expect(last.peak).toBeLessThan(first.peak + HEAP_CAP_MIB);
    expect(after.hwm).toBeLessThan(400);
  }, 240_000);
});
