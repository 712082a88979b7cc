/**
 * `mcp-failure-proxy --revision 2026-07-28` as users install it: the packed tarball in a fresh
 * project with `@modelcontextprotocol/sdk` 1.x only refuses to start, saying in one line what to
 * install; once `@modelcontextprotocol/server` 2.4.0 is installed beside it, the same command
 * answers a 2026-07-28 `server/discover` and `tools/call` with the upstream's result.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { envelopeHeaders, withEnvelope } from '../../packages/tool-failure/src/wire/envelope.js';
import { ROOT } from '../observability/helpers.js';
import { runtimes } from '../helpers/runtimes.js';
import { newProject, node, npmInstall, pack, runtimeEnv } from './install.js';

const runtime = runtimes()[0]!;
const failure = { class: 'governance', code: 'permission_denied', correlationId: 'up-1' };
const UPSTREAM = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const server = new McpServer({ name: 'installed-upstream', version: '1.0.0' });
server.registerTool('denied', {}, async () => ({
  content: [{ type: 'text', text: 'no' }],
  isError: true,
  _meta: { 'io.modelcontextprotocol/toolFailure': ${JSON.stringify(failure)} },
}));
await server.connect(new StdioServerTransport());
`;
const QUIET = {
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
};

let project: string;
let cli: string;
const args = (): string[] => [
  cli,
  '--listen',
  '127.0.0.1:0',
  '--revision',
  '2026-07-28',
  '--',
  runtime.node,
  join(project, 'upstream.mjs'),
];

beforeAll(async () => {
  project = await newProject(runtime, pack(join(ROOT, 'packages', 'proxy')), [
    '@opentelemetry/api@1.9.1',
    '@modelcontextprotocol/sdk@1.32.2',
  ]);
  writeFileSync(join(project, 'upstream.mjs'), UPSTREAM);
  // The executable the install links, as `npx mcp-failure-proxy` runs it.
  cli = join(project, 'node_modules', '.bin', 'mcp-failure-proxy');
}, 600_000);

/** POSTs one 2026-07-28 request (envelope and headers) and returns its JSON-RPC answer. */
async function call(url: string, id: number, method: string, params: Record<string, unknown>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...envelopeHeaders(method, params),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: withEnvelope(params, { name: 'installed-client', version: '1' }),
    }),
  });
  const text = await res.text();
  return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as {
    result?: Record<string, unknown>;
  };
}

describe('mcp-failure-proxy --revision 2026-07-28 in a real install', () => {
  it('without @modelcontextprotocol/server 2.x: exit 2, one line saying what to install', async () => {
    const run = await node(runtime, project, args(), QUIET);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      'mcp-failure-proxy: serving the 2026-07-28 revision needs @modelcontextprotocol/server 2.x (with createMcpHandler): npm install @modelcontextprotocol/server@2',
    ]);
  });

  it('with @modelcontextprotocol/server 2.4.0 installed: server/discover and a tools/call relayed unchanged', async () => {
    await npmInstall(runtime, project, ['@modelcontextprotocol/server@2.4.0']);
    const child = spawn(runtime.node, args(), {
      cwd: project,
      env: runtimeEnv(runtime, QUIET),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let said = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          said += chunk.toString();
          const m = /listening on (\S+)/.exec(said);
          if (m?.[1] !== undefined) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${said}`)));
      });
      const discover = await call(url, 1, 'server/discover', {});
      expect(discover.result?.supportedVersions).toContain('2026-07-28');
      expect(discover.result?._meta).toMatchObject({
        'io.modelcontextprotocol/serverInfo': { name: 'installed-upstream', version: '1.0.0' },
      });
      const denied = await call(url, 2, 'tools/call', { name: 'denied', arguments: {} });
      expect(denied.result).toStrictEqual({
        content: [{ type: 'text', text: 'no' }],
        isError: true,
        _meta: { 'io.modelcontextprotocol/toolFailure': failure },
        resultType: 'complete',
      });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }, 600_000);
});
