import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROXY_OPTIONS, PROXY_USAGE } from '../src/args.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { Client, McpServer } from '../../../test/helpers/mcp-v1.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';
import { CLI, root, startCli, telemetryEnv } from './cli-process.js';

const FIXTURE = 'packages/proxy/test/fixtures/flaky-server.mjs';
const TOKEN = `tok-${randomUUID()}`;
const UPSTREAM_SECRET = `up-${randomUUID()}`;

describe('mcp-failure-proxy CLI access control', () => {
  let receiver: OtlpReceiver;
  let dir: string;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dir = mkdtempSync(join(tmpdir(), 'proxy-access-'));
  });
  afterAll(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['file', 'env'] as const)(
    'a bearer token from a %s: 401 without it, works with it, and never appears in the output or telemetry',
    async (from) => {
      const file = join(dir, `token-${from}`);
      writeFileSync(file, `${TOKEN}\n`);
      const env = { ...telemetryEnv(receiver), MCP_PROXY_TOKEN: TOKEN };
      const source =
        from === 'file' ? ['--auth-token-file', file] : ['--auth-token-env', 'MCP_PROXY_TOKEN'];
      const cli = startCli(
        ['--listen', '127.0.0.1:0', ...source, '--', process.execPath, FIXTURE],
        env,
      );
      try {
        const url = await cli.listening;
        const refused = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
          body: '{}',
        });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mcp-failure-proxy"');
        const client = new Client({ name: 'c', version: '1' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(url), {
            requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
          }),
        );
        const r = await client.callTool({ name: 'flaky', arguments: {} });
        expect(r._meta?.[KEY]).toMatchObject({ class: 'reliability' });
        await client.close();
        await receiver.waitFor(
          (spans) => spans.some((s) => s.serviceName === 'mcp-failure-proxy'),
          10_000,
        );
      } finally {
        const out = await cli.stop();
        // With telemetry, the SDK's shutdown hook ends the process the way SIGTERM would.
        expect(out.code === 0 || out.signal === 'SIGTERM', out.stderr).toBe(true);
        expect(out.stdout + out.stderr).not.toContain(TOKEN);
      }
      const telemetry = [...receiver.traceBodies, ...receiver.logBodies].join('\n');
      expect(telemetry.length).toBeGreaterThan(0);
      expect(telemetry).not.toContain(TOKEN);
    },
  );

  it('a non-loopback address without a token refuses to start: one line, exit 2', async () => {
    const out = await startCli([
      '--listen',
      '0.0.0.0:0',
      '--allowed-hosts',
      'proxy.example',
      '--',
      process.execPath,
      FIXTURE,
    ]).exited;
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n'), out.stderr).toHaveLength(1);
    expect(out.stderr).toMatch(
      /^mcp-failure-proxy: 0\.0\.0\.0 is not a loopback address: set a bearer token .*--allow-unauthenticated\n$/,
    );
  });

  it('--allow-unauthenticated: it starts (and is stopped at once, before any request)', async () => {
    const cli = startCli([
      '--listen',
      '0.0.0.0:0',
      '--allowed-hosts',
      'proxy.example',
      '--allow-unauthenticated',
      '--',
      process.execPath,
      FIXTURE,
    ]);
    try {
      expect(await cli.listening).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    } finally {
      expect((await cli.stop()).code).toBe(0);
    }
  });

  it.each([
    ['a token file that does not exist', ['--auth-token-file', '/nonexistent/token']],
    ['a token variable that is not set', ['--auth-token-env', 'NOT_SET_ANYWHERE_1234']],
    ['both token sources', ['--auth-token-file', 'f', '--auth-token-env', 'V']],
    ['a token on the command line itself', ['--auth-token', TOKEN]],
    ['an origin that is not one', ['--allowed-origins', 'not an origin']],
  ])('%s: exit 2 with one line that does not hold the token', async (_name, extra) => {
    const out = await startCli([
      '--listen',
      '127.0.0.1:0',
      ...extra,
      '--',
      process.execPath,
      FIXTURE,
    ]).exited;
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n'), out.stderr).toHaveLength(1);
    expect(out.stderr).not.toContain(TOKEN);
  });

  it.each([
    ['--auth-token-env with --stdio', ['--stdio', '--auth-token-env', 'T', '--', 'x']],
    ['--allowed-hosts with --stdio', ['--stdio', '--allowed-hosts', 'a', '--', 'x']],
    [
      'an upstream header without --upstream-url',
      ['--stdio', '--upstream-header-env', 'H', '--', 'x'],
    ],
    [
      'a session limit with --stateless',
      ['--listen', '127.0.0.1:0', '--stateless', '--max-sessions', '5', '--', 'x'],
    ],
    ['a limit with --stdio', ['--stdio', '--max-body-bytes', '1024', '--', 'x']],
    [
      'a limit that is not a number',
      ['--listen', '127.0.0.1:0', '--max-sessions', 'lots', '--', 'x'],
    ],
  ])('usage error (%s): exit 2', async (_name, args) => {
    const out = await startCli(args).exited;
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^mcp-failure-proxy: .+ \(see --help\)\n$/);
  });

  it('--help lists every option the parser takes, and so does docs/proxy.md', async () => {
    const out = await startCli(['--help']).exited;
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(PROXY_USAGE);
    const docs = readFileSync(join(root, 'docs/proxy.md'), 'utf8');
    const flags = Object.keys(PROXY_OPTIONS).map((name) => `--${name}`);
    expect(flags.length).toBeGreaterThan(20);
    for (const flag of flags) {
      expect(out.stdout, flag).toMatch(new RegExp(`(^|[\\s,])${flag}([\\s,]|$)`, 'm'));
      if (flag !== '--help') expect(docs, flag).toContain(`\`${flag}`);
    }
  });
});

describe('mcp-failure-proxy CLI: a static header for an HTTP upstream', () => {
  let upstream: HttpServer;
  let upstreamUrl: string;
  let received: Array<string | undefined>;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    received = [];
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    upstream = createServer((req, res) => {
      const key = req.headers['x-upstream-key'];
      received.push(typeof key === 'string' ? key : undefined);
      // A careless upstream: it echoes the credential in its error.
      if (req.url?.startsWith('/echo') === true || key !== UPSTREAM_SECRET) {
        res.writeHead(403).end(`bad key ${String(key)}`);
        return;
      }
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (transport === undefined) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        const server = new McpServer({ name: 'keyed-upstream', version: '1' });
        server.registerTool('hello', {}, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
        void server.connect(created);
        transport = created;
      }
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
    await receiver.close();
  });

  async function callThrough(path: string): Promise<{ result: unknown; stderr: string }> {
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        CLI,
        '--stdio',
        '--upstream-url',
        `${upstreamUrl}${path}`,
        '--upstream-header-env',
        'UPSTREAM_HEADER',
        '--connect-timeout',
        '5000',
      ],
      cwd: root,
      env: { ...telemetryEnv(receiver), UPSTREAM_HEADER: `X-Upstream-Key: ${UPSTREAM_SECRET}` },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(transport);
    let result: unknown;
    try {
      result = await client.callTool({ name: 'hello', arguments: {} });
    } finally {
      await client.close();
    }
    return { result, stderr: stderr.join('') };
  }

  it('sends the header upstream', async () => {
    const { result } = await callThrough('/mcp');
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    expect(received).toContain(UPSTREAM_SECRET);
  });

  it('an upstream that echoes the header in its error: the secret reaches no result, log or span', async () => {
    const { result, stderr } = await callThrough('/echo');
    expect(result).toMatchObject({
      isError: true,
      _meta: { [KEY]: { class: 'reliability', code: 'upstream_unavailable' } },
    });
    expect(JSON.stringify(result)).toContain('[redacted]');
    expect(JSON.stringify(result)).not.toContain(UPSTREAM_SECRET);
    expect(stderr).not.toContain(UPSTREAM_SECRET);
    await receiver.waitFor((spans) => spans.some((s) => s.serviceName === 'mcp-failure-proxy'));
    const telemetry = [...receiver.traceBodies, ...receiver.logBodies].join('\n');
    expect(telemetry).not.toContain(UPSTREAM_SECRET);
  });
});
