/**
 * The shells around the scripted server (src/check/scripted.ts) of `check client` and
 * `check proxy`: newline-delimited JSON-RPC on stdio (`mcp-failures check serve-scripted`, the
 * command a client under test or a proxy under test starts) and Streamable HTTP on 127.0.0.1 (in
 * the checker's own process). Plain JSON-RPC, no SDK: every byte sent is the script's.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import {
  clientScript,
  createScriptedHandler,
  proxyCases,
  proxyScript,
  type ProxyCase,
  type ScriptedCall,
  type ScriptedHandler,
  type ScriptedTool,
} from '../check/scripted.js';
import { isRecord } from '../shared/safe.js';
import { createRequestGuard, refusalOf } from '../proxy/http-guard.js';
import { refusalBody } from '../proxy/http-limits.js';
import { firstLineOf } from '../shared/first-line.js';

/** Serves `handler` on newline-delimited JSON-RPC until `input` ends. */
export function serveStdio(
  handler: ScriptedHandler,
  input: NodeJS.ReadableStream,
  write: (line: string) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const lines = createInterface({ input });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        write(
          `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })}\n`,
        );
        return;
      }
      for (const response of answerAll(handler, message)) write(`${JSON.stringify(response)}\n`);
    });
    lines.on('close', () => resolve());
  });
}

function answerAll(handler: ScriptedHandler, message: unknown): Record<string, unknown>[] {
  const messages = Array.isArray(message) ? message : [message];
  const out: Record<string, unknown>[] = [];
  for (const m of messages) {
    const response = handler(m);
    if (response !== undefined) out.push(response);
  }
  return out;
}

/** A scripted server listening on loopback. */
export interface ScriptedHttpServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

/**
 * Serves `handler` as a Streamable HTTP endpoint at /mcp on 127.0.0.1 (any free port): POST
 * answered with application/json, 202 for notifications; no server-initiated stream (GET: 405).
 */
export function startScriptedHttp(handler: ScriptedHandler): Promise<ScriptedHttpServer> {
  // The same DNS-rebinding protection as the proxy's endpoint: loopback Host and Origin only.
  const guard = createRequestGuard('127.0.0.1', {});
  const server = createServer((req, res) => {
    const refused = refusalOf(guard, req.headers, req.socket.localPort);
    if (refused !== undefined) {
      res
        .writeHead(refused.status, { 'content-type': 'application/json' })
        .end(refusalBody(refused.reason));
      return;
    }
    // A client that aborts its request mid-body: nothing to answer, nothing to record.
    handle(handler, req, res).catch(() => res.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

async function handle(
  handler: ScriptedHandler,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  if (path !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  if (req.method === 'DELETE') {
    res.writeHead(200).end();
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST, DELETE' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) {
      // The rest is read and dropped, so that the client sees the answer.
      req.resume();
      res.writeHead(413, { connection: 'close' }).end();
      return;
    }
    chunks.push(chunk);
  }
  let message: unknown;
  try {
    message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      }),
    );
    return;
  }
  const responses = answerAll(handler, message);
  if (responses.length === 0) {
    res.writeHead(202).end();
    return;
  }
  const body = Array.isArray(message) ? responses : responses[0];
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Usage of the helper command the checkers hand to the command under test. */
export const SERVE_SCRIPTED_USAGE = `Usage: mcp-failures check serve-scripted --script client|proxy [--run-id ID] [--vectors FILE] [--log FILE]

The scripted MCP server of check client (--script client) or the scripted upstream of check proxy
(--script proxy, cases from --vectors FILE, conformance/intermediary-cases.json) on stdio. Every
tools/call is appended to --log FILE as one JSON line. Started by check client and check proxy;
run it by hand to try a client against the script.
`;

/** The cases of `check proxy`, from conformance/intermediary-cases.json at `path`; throws if unreadable. */
export function loadProxyCases(path: string): ProxyCase[] {
  const doc: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isRecord(doc) || !Array.isArray(doc.cases))
    throw new Error(`${path} has no "cases" array (expected conformance/intermediary-cases.json)`);
  return proxyCases(doc.cases);
}

/** The script a `serve-scripted` command line names; throws a one-line Error when it cannot. */
export function scriptedToolsOf(
  script: string | undefined,
  runId: string,
  vectors: string | undefined,
): ScriptedTool[] {
  if (script === 'client') return clientScript(runId);
  if (script === 'proxy') {
    if (vectors === undefined) throw new Error('--script proxy needs --vectors FILE');
    return proxyScript(loadProxyCases(vectors));
  }
  throw new Error(`--script must be client or proxy, got '${script ?? ''}'`);
}

/** `mcp-failures check serve-scripted ...`: serves on stdin/stdout until stdin ends. */
export async function runServeScripted(
  argv: readonly string[],
  io: { stdout(text: string): void; stderr(text: string): void },
): Promise<number> {
  let tools: ScriptedTool[];
  let log: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv.slice(2),
      strict: true,
      options: {
        script: { type: 'string' },
        'run-id': { type: 'string' },
        vectors: { type: 'string' },
        log: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help === true) {
      io.stdout(SERVE_SCRIPTED_USAGE);
      return 0;
    }
    tools = scriptedToolsOf(values.script, values['run-id'] ?? 'manual', values.vectors);
    log = values.log;
  } catch (error) {
    io.stderr(`mcp-failures: ${firstLineOf(error)}\n`);
    return 2;
  }
  const onCall = (call: ScriptedCall): void => {
    if (log !== undefined) appendFileSync(log, `${JSON.stringify(call)}\n`);
  };
  await serveStdio(createScriptedHandler(tools, onCall), process.stdin, (line) => io.stdout(line));
  return 0;
}

/** The calls a `serve-scripted --log FILE` process recorded; none when it never started. */
export function readCallLog(path: string): ScriptedCall[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const calls: ScriptedCall[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      calls.push(JSON.parse(line) as ScriptedCall);
    } catch {
      // a line cut short when the process was killed mid-write
    }
  }
  return calls;
}
