// The load driver of the gateway section: a process of its own (never the gateway's), driven by
// bench/lib/gateway-run.mjs over IPC. It holds one SDK 1.x client per row, each one session
// (Streamable HTTP to a gateway, or stdio to the upstream for the direct row), and runs a
// given number of `echo` calls with a given number in flight, timing each one and checking
// that the answer is the text sent.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Longest wait for one call: a bridge that stalls under load counts errors, not hours. */
const CALL_TIMEOUT_MS = 30_000;
const clients = new Map();
// The SDK's stdio client waits for 'drain' once per message sent while the child's pipe is full:
// with 512 calls in flight on the direct row that is hundreds of listeners, by design, and Node's
// leak warning (at 10) would only be noise on the bench's stderr.
EventEmitter.defaultMaxListeners = 1024;

async function open({ row, endpoint }) {
  const client = new Client({ name: 'gateway-bench', version: '1.0.0' });
  const transport =
    endpoint.kind === 'stdio'
      ? new StdioClientTransport({
          command: endpoint.command,
          args: endpoint.args,
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(new URL(endpoint.url), {
          requestInit: { headers: endpoint.headers ?? {} },
        });
  await client.connect(transport);
  clients.set(row, { client, transport });
  return { pid: endpoint.kind === 'stdio' ? transport.pid : undefined };
}

/** `calls` calls of `row` with `concurrency` in flight: each call's milliseconds, and errors. */
async function run({ row, calls, concurrency }) {
  const { client } = clients.get(row);
  const latencies = [];
  let errors = 0;
  let firstError;
  let next = 0;
  const one = async (i) => {
    const text = `call ${i}`;
    const started = performance.now();
    try {
      const r = await client.callTool({ name: 'echo', arguments: { text } }, undefined, {
        timeout: CALL_TIMEOUT_MS,
      });
      if (r.isError === true || r.content?.[0]?.text !== text)
        throw new Error(`answered ${JSON.stringify(r).slice(0, 200)}`);
      latencies.push(performance.now() - started);
    } catch (error) {
      errors++;
      firstError ??= error instanceof Error ? error.message : String(error);
    }
  };
  const lane = async () => {
    while (next < calls) await one(next++);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, lane));
  return { latencies, errors, firstError, wallMs: performance.now() - started };
}

async function close({ row }) {
  const c = clients.get(row);
  clients.delete(row);
  await c?.transport.terminateSession?.().catch(() => undefined);
  await c?.client.close();
}

/** Answers, then leaves: the IPC reply must go out before the process does. */
async function exit() {
  setImmediate(() => process.exit(0));
}

const commands = { open, run, close, exit };
process.on('message', (m) => {
  commands[m.cmd](m).then(
    (result) => process.send({ id: m.id, result }),
    (error) =>
      process.send({ id: m.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.send({ ready: true });
