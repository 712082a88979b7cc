/**
 * The proxy serving the 2026-07-28 revision downstream (`revision: '2026-07-28'`,
 * `--revision 2026-07-28`): the SDK 2.4 client (`@modelcontextprotocol/client`) in each of its
 * negotiation modes against the endpoint in this process, over a real SDK 1.x upstream; the
 * configuration it refuses; and `mcp-failures check proxy --revision 2026-07-28` against the
 * CLI with a stdio and a Streamable HTTP upstream (run `npm run build` first). Traces through
 * the proxy in this mode: test/matrix/matrix.test.ts (its proxy-* cases).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_EXIT } from '../../mcp-failures/src/cli/check-common.js';
import { runCheckProxy } from '../../mcp-failures/src/cli/check-proxy-command.js';
import { PROXY_EXIT, parseProxyArgs } from '../src/args.js';
import { createToolFailureProxy } from '../src/index.js';
import { ProxyHttpConfigError, serveStreamableHttp, type ProxyHttpEndpoint } from '../src/http.js';
import type { ToolFailureProxy } from '../src/types.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { McpServer } from '../../../test/helpers/mcp-v1.js';
import { envelopeHeaders, withEnvelope } from '../../tool-failure/src/wire/envelope.js';
import { scriptedUpstream } from './harness.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { binPath } from '../../../scripts/workspace.mjs';

const failure = {
  class: 'governance',
  code: 'permission_denied',
  correlationId: 'up-7',
  agentGuidance: 'Ask for access.',
  'x-unknown': { nested: [1, 'two'] },
};
const meta = { [KEY]: failure, 'vendor.example/other': 42 };

/** A real SDK 1.x McpServer upstream (in memory): one failing tool and one succeeding. */
function upstream(): () => Promise<InMemoryTransport> {
  return async () => {
    const [proxySide, upstreamSide] = InMemoryTransport.createLinkedPair();
    const server = new McpServer({ name: 'modern-upstream', version: '3.1.4' });
    server.registerTool('denied', { annotations: { idempotentHint: true } }, async () => ({
      content: [{ type: 'text', text: 'no access' }],
      isError: true,
      _meta: meta,
    }));
    server.registerTool('fine', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    await server.connect(upstreamSide);
    return proxySide;
  };
}

const MODES = {
  default: undefined,
  pinned: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  auto: { versionNegotiation: { mode: 'auto' } },
} as const;

describe('an SDK 2.4 client against the proxy in 2026-07-28 mode', () => {
  let proxy: ToolFailureProxy;
  let endpoint: ProxyHttpEndpoint;
  beforeAll(async () => {
    proxy = createToolFailureProxy({ upstream: upstream(), timeoutMs: 5_000 });
    endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { revision: '2026-07-28' });
  });
  afterAll(async () => {
    await endpoint.close();
    await proxy.close();
  });

  it.each([
    ['default', '2025-11-25'],
    ['pinned', '2026-07-28'],
    ['auto', '2026-07-28'],
  ] as const)(
    '%s negotiation speaks %s without a session; the failure and all of _meta arrive unchanged',
    async (mode, version) => {
      const options = MODES[mode];
      const client =
        options === undefined
          ? new Client({ name: 'modern-client', version: '1' })
          : new Client({ name: 'modern-client', version: '1' }, options);
      const transport = new StreamableHTTPClientTransport(new URL(endpoint.url));
      try {
        await client.connect(transport);
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
        expect(transport.sessionId).toBeUndefined();
        // The upstream's identity, through initialize or server/discover.
        expect(client.getServerVersion()).toMatchObject({
          name: 'modern-upstream',
          version: '3.1.4',
        });
        const listed = await client.listTools();
        expect(listed.tools.map((t) => t.name).sort()).toEqual(['denied', 'fine']);
        const denied = await client.callTool({ name: 'denied', arguments: {} });
        expect(denied.isError).toBe(true);
        expect(denied.content).toEqual([{ type: 'text', text: 'no access' }]);
        expect(JSON.stringify(denied._meta)).toBe(JSON.stringify(meta));
        const fine = await client.callTool({ name: 'fine', arguments: {} });
        expect(fine.isError ?? false).toBe(false);
        expect(fine._meta).toBeUndefined();
      } finally {
        await client.close();
      }
      expect(endpoint.sessions()).toBe(0);
    },
  );

  it('on the wire: a tools/call result is the upstream’s, with the revision’s resultType added and nothing in _meta', async () => {
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'denied',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: {
          name: 'denied',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const text = await res.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    const message = JSON.parse(data) as { id: number; result: Record<string, unknown> };
    expect(message.id).toBe(5);
    expect(message.result).toStrictEqual({
      content: [{ type: 'text', text: 'no access' }],
      isError: true,
      _meta: meta,
      resultType: 'complete',
    });
  });
});

describe('what goes upstream from a 2026-07-28 request', () => {
  it('the envelope is the downstream hop’s: the upstream gets the caller’s other _meta keys and no envelope key', async () => {
    const scripted = scriptedUpstream(() => ({ result: { content: [] } }));
    const proxy = createToolFailureProxy({ upstream: scripted.factory, timeoutMs: 5_000 });
    const endpoint = await serveStreamableHttp(proxy, '127.0.0.1', 0, { revision: '2026-07-28' });
    try {
      const params = {
        name: 'echo',
        arguments: { a: 1 },
        _meta: {
          'vendor.example/tenant': 't-1',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        },
      };
      const res = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...envelopeHeaders('tools/call', params),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: withEnvelope(params, { name: 'c', version: '1' }),
        }),
      });
      expect(res.status).toBe(200);
      await res.text();
      const sent = scripted.requests.find((r) => r.method === 'tools/call');
      expect(sent?.params).toStrictEqual(params);
    } finally {
      await endpoint.close();
      await proxy.close();
    }
  });
});

describe('configuration of the 2026-07-28 mode', () => {
  it('the endpoint refuses another revision, and the limits of sessions, without listening', async () => {
    const proxy = createToolFailureProxy({ upstream: upstream() });
    try {
      await expect(
        serveStreamableHttp(proxy, '127.0.0.1', 0, {
          revision: '2025-11-25' as unknown as '2026-07-28',
        }),
      ).rejects.toThrow(ProxyHttpConfigError);
      await expect(
        serveStreamableHttp(proxy, '127.0.0.1', 0, {
          revision: '2026-07-28',
          limits: { maxSessions: 5 },
        }),
      ).rejects.toThrow(/maxSessions applies to sessions/);
      // Not a proxy of createToolFailureProxy: said in one line, as a configuration error.
      await expect(
        serveStreamableHttp(
          { connect: async () => undefined, close: async () => undefined },
          '127.0.0.1',
          0,
          { revision: '2026-07-28' },
        ),
      ).rejects.toThrow(/needs a proxy made by createToolFailureProxy/);
    } finally {
      await proxy.close();
    }
  });

  it('the CLI: --revision 2026-07-28 implies --stateless; another value, --stdio, or a session limit is a usage error', () => {
    const parsed = parseProxyArgs([
      '--listen',
      '127.0.0.1:0',
      '--revision',
      '2026-07-28',
      '--',
      'node',
      'up.mjs',
    ]);
    expect(parsed !== 'help' && parsed.downstream).toMatchObject({
      kind: 'http',
      stateless: true,
      revision: '2026-07-28',
    });
    expect(() =>
      parseProxyArgs(['--listen', '127.0.0.1:0', '--revision', '2025-11-25', '--', 'x']),
    ).toThrow(/--revision takes 2026-07-28/);
    expect(() => parseProxyArgs(['--stdio', '--revision', '2026-07-28', '--', 'x'])).toThrow(
      /--revision applies to --listen only/,
    );
    expect(() =>
      parseProxyArgs([
        '--listen',
        '127.0.0.1:0',
        '--revision',
        '2026-07-28',
        '--max-sessions',
        '3',
        '--',
        'x',
      ]),
    ).toThrow(/--max-sessions applies to sessions/);
    expect(PROXY_EXIT.usage).toBe(2);
  });
});

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = binPath('mcp-failures');
const proxyBin = binPath('mcp-failure-proxy');
const quiet = {
  ...process.env,
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
};

function mcpFailures(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: quiet, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const RULES = [
  'TF-PROXY-PRESERVE',
  'TF-PROXY-NO-REWRITE',
  'TF-PROXY-NO-RETRY',
  'TF-PROXY-OWN-FAILURE',
];

describe('mcp-failures check proxy --revision 2026-07-28', () => {
  beforeAll(() => {
    if (!existsSync(bin) || !existsSync(proxyBin))
      throw new Error('dist/ is missing: run npm run build');
  });

  it.each(['stdio', 'http'] as const)(
    'passes mcp-failure-proxy --revision 2026-07-28 with a %s upstream, every rule exercised',
    async (upstreamKind) => {
      const run = await mcpFailures([
        'check',
        'proxy',
        '--upstream',
        upstreamKind,
        '--downstream',
        'http',
        '--revision',
        '2026-07-28',
        '--',
        process.execPath,
        proxyBin,
        '--listen',
        '127.0.0.1:{port}',
        '--revision',
        '2026-07-28',
        ...(upstreamKind === 'http' ? ['--upstream-url', '{upstream}'] : ['--', '{upstream}']),
      ]);
      expect(run.code, run.stderr + run.stdout).toBe(CHECK_EXIT.pass);
      expect(run.stdout).toMatch(
        new RegExp(`upstream over ${upstreamKind}, client over http, revision 2026-07-28`),
      );
      for (const rule of RULES) expect(run.stdout).toMatch(new RegExp(`^${rule}\\s+pass \\(`, 'm'));
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('PASS');
    },
  );

  it('exits 2 in one line against an intermediary that does not serve 2026-07-28', async () => {
    const run = await mcpFailures([
      'check',
      'proxy',
      '--downstream',
      'http',
      '--revision',
      '2026-07-28',
      '--timeout',
      '5000',
      '--',
      process.execPath,
      proxyBin,
      '--listen',
      '127.0.0.1:{port}',
      '--stateless',
      '--',
      '{upstream}',
    ]);
    expect(run.code).toBe(CHECK_EXIT.error);
    expect(run.stderr).toMatch(
      /^mcp-failures: no answer to server\/discover from the intermediary/,
    );
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it.each([
    [['--revision', '2026-07-28', '--', 'x'], /--revision 2026-07-28 goes with --downstream http/],
    [['--revision', '2024-11-05', '--', 'x'], /--revision must be 2025-06-18 or 2026-07-28/],
  ])('%j is a usage error (exit 2, one line)', async (argv, message) => {
    let stderr = '';
    const code = await runCheckProxy(['check', 'proxy', ...argv], {
      self: [process.execPath, bin],
      vectors: join(root, 'packages', 'mcp-failures', 'conformance', 'intermediary-cases.json'),
      writeFile: async () => undefined,
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
    });
    expect(code).toBe(CHECK_EXIT.error);
    expect(stderr).toMatch(message);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
