// One cold start: a real SDK client spawns the server of the cold-start section under a
// variant's Node options and calls its tool; the time runs from just before the spawn to the
// tool's answer, what a host that starts the server at session start waits for.
import { performance } from 'node:perf_hooks';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const SERVER = here('./coldstart-server.mjs');
const preload = (file) => ['--import', pathToFileURL(here(file)).href];

/**
 * The rows, each Node options and environment: the server bare; under the register entry of this
 * build, and of it with its loader hook wrapping every module (as it did before the hook was
 * limited); the README's NodeSDK path; sdk-node alone; a no-op loader hook (what registering any
 * ES module hook costs on this Node); a peer's NodeSDK path.
 */
export const VARIANTS = {
  bare: { args: [] },
  register: { args: preload('../../register/index.mjs') },
  'register-all': {
    args: preload('../../register/index.mjs'),
    env: { OTEL_INSTRUMENTATION_MCP_ESM_HOOK: 'all' },
  },
  nodesdk: { args: preload('./coldstart-nodesdk.mjs') },
  'sdk-node': { args: preload('./coldstart-sdk-node.mjs') },
  'loader-hook': { args: preload('./coldstart-noop-hook.mjs') },
  traceloop: { args: preload('./coldstart-traceloop.mjs') },
};

/** What the server gets: the bench's environment without its own Node or OpenTelemetry settings. */
function serverEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== 'NODE_OPTIONS' && !k.startsWith('OTEL_')) env[k] = v;
  return {
    ...env,
    OTEL_SERVICE_NAME: 'coldstart',
    OTEL_TRACES_EXPORTER: 'none',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
    ...extra,
  };
}

/**
 * The per-line rows' variants, run in a user's project (bench/lib/coldstart-lines.mjs): its
 * `server.mjs` bare, and under the register entry the project installed.
 */
export const PROJECT_VARIANTS = {
  bare: { args: [] },
  register: { args: ['--import', '@omcp/instrumentation-mcp/register'] },
};

/**
 * Starts `variant`'s server, calls `echo`, and stops it (stdin closed: it ends by itself, and a
 * span it holds is exported on the way out). `ms` is spawn to answer; `answer` the tool's text;
 * `stderr` what the server printed. `project`: run `node` (a Node.js binary) in that user's
 * project, with {@link PROJECT_VARIANTS}; else this build's tree on this Node.js.
 */
export async function coldStart(variant, { env = {}, nodeArgs = [], project, node } = {}) {
  const [args, server, extra] =
    project === undefined
      ? [VARIANTS[variant].args, SERVER, VARIANTS[variant].env]
      : [PROJECT_VARIANTS[variant].args, 'server.mjs', undefined];
  const transport = new StdioClientTransport({
    command: node ?? process.execPath,
    args: [...nodeArgs, ...args, server],
    env: serverEnv({ ...extra, ...env }),
    cwd: project,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'coldstart-driver', version: '1.0.0' });
  const started = performance.now();
  let result;
  try {
    await client.connect(transport);
    result = await client.callTool({ name: 'echo', arguments: { text: 'cold' } });
  } catch (error) {
    await client.close();
    throw new Error(`cold start ${variant}: ${error.message}; the server said: ${stderr.trim()}`);
  }
  const ms = performance.now() - started;
  await client.close();
  const answer = result.content?.[0]?.text;
  return { ms, answer, stderr };
}
