// The rows of the gateway section: how each relay of the same stdio upstream is started and
// reached. This package's proxy (bare, with the circuit breaker and retry, with a bearer token),
// the two third-party bridges users pick for the same relay (stdio server served as Streamable
// HTTP), and the direct call the added latency is measured from.
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { treeOf } from './gateway-proc.mjs';
import { binPath } from '../../scripts/workspace.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const UPSTREAM = here('./gateway-upstream.mjs');
const PROXY = binPath('mcp-failure-proxy');
const SUPERGATEWAY = here('../peers/node_modules/supergateway/dist/index.js');
const MCP_PROXY = here('../peers/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');
const TOKEN = 'gateway-bench-token';
/**
 * The proxy answers at most 64 requests of one session at once by default (then 429); every
 * row serves one session here, so the limit is raised to the most in flight the section asks.
 */
const PER_SESSION = ['--max-in-flight-per-session', '512'];

/**
 * Rows in the order they are printed. The targets: `omcp-untraced` (the relay, telemetry off) no
 * slower than either bridge at every load, p50 and p99; `omcp` (traced) at most
 * {@link TRACING_LIMIT_MS} over it at p50 with one call in flight. The other rows are context.
 */
export const GATEWAY_ROWS = [
  'direct',
  'omcp',
  'omcp-untraced',
  'omcp-breaker-retry',
  'omcp-auth',
  'supergateway',
  'mcp-proxy',
];
export const BRIDGES = ['supergateway', 'mcp-proxy'];
/** The row judged against the bridges. */
export const RELAY = 'omcp-untraced';
/** What tracing may add to the relay's p50 with one call in flight, in ms. */
export const TRACING_LIMIT_MS = 0.25;

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port, child, deadline = Date.now() + 60_000) {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before listening`);
    const ok = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => resolve(s.end() && true));
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`nothing listened on ${port} within 60 s`);
}

function spawnGateway(args, env) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4096)));
  child.stdout.resume();
  return { child, stderr: () => stderr };
}

async function startOurs(extra, env) {
  const g = spawnGateway(
    [PROXY, '--listen', '127.0.0.1:0', ...PER_SESSION, ...extra, '--', process.execPath, UPSTREAM],
    env,
  );
  const url = await new Promise((resolve, reject) => {
    let text = '';
    g.child.stderr.on('data', (d) => {
      text += d;
      const m = /listening on (\S+)/.exec(text);
      if (m !== null) resolve(m[1]);
    });
    g.child.once('exit', (code) => reject(new Error(`the proxy exited ${code}: ${g.stderr()}`)));
  });
  return { ...g, url };
}

/**
 * Starts `row`'s gateway (none for `direct`); resolves with `{ endpoint, pid, stop }`, where
 * `endpoint` is what the driver connects to and `pid` the process whose tree is measured.
 * `telemetry` is the environment of this package's proxy rows (OTLP to a local receiver).
 */
export async function startRow(row, telemetry) {
  if (row === 'direct')
    return {
      endpoint: { kind: 'stdio', command: process.execPath, args: [UPSTREAM] },
      pid: undefined,
      stop: async () => undefined,
    };
  let g;
  let headers;
  if (row === 'omcp') g = await startOurs([], telemetry);
  else if (row === 'omcp-untraced')
    g = await startOurs([], { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_EXPORTER: 'none' });
  else if (row === 'omcp-breaker-retry')
    g = await startOurs(['--circuit-breaker', '--retry'], telemetry);
  else if (row === 'omcp-auth') {
    g = await startOurs(['--auth-token-env', 'GATEWAY_BENCH_TOKEN'], {
      ...telemetry,
      GATEWAY_BENCH_TOKEN: TOKEN,
    });
    headers = { authorization: `Bearer ${TOKEN}` };
  } else {
    const port = await freePort();
    const command = `"${process.execPath}" "${UPSTREAM}"`;
    const args =
      row === 'supergateway'
        ? [
            SUPERGATEWAY,
            '--stdio',
            command,
            '--outputTransport',
            'streamableHttp',
            '--stateful',
            '--port',
            String(port),
            '--logLevel',
            'none',
          ]
        : [
            MCP_PROXY,
            '--port',
            String(port),
            '--host',
            '127.0.0.1',
            '--server',
            'stream',
            '--',
            process.execPath,
            UPSTREAM,
          ];
    g = spawnGateway(args, {});
    await waitForPort(port, g.child);
    g.url = `http://127.0.0.1:${port}/mcp`;
  }
  const exited = new Promise((resolve) => g.child.once('exit', resolve));
  return {
    endpoint: { kind: 'http', url: g.url, headers },
    pid: g.child.pid,
    stderr: g.stderr,
    async stop() {
      // The processes it started, named before it goes: a gateway that leaves its upstream
      // behind on SIGTERM must not leave it running after the section.
      const tree = treeOf(g.child.pid).slice(1);
      if (g.child.exitCode === null) g.child.kill('SIGTERM');
      const timer = setTimeout(() => g.child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      for (const pid of tree)
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
    },
  };
}
