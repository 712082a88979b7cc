/**
 * The checkers' one raw JSON-RPC server, below any SDK, so that every byte sent is the script's:
 * newline-delimited JSON-RPC on stdio, and Streamable HTTP on 127.0.0.1. Every request the HTTP
 * side refuses (foreign Host or Origin, another path, another method, a body over the cap, a body
 * that is not JSON) gets the proxy's answer from its one table (`REFUSALS`,
 * packages/proxy/src/http-limits.ts), with the proxy's body cap.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptedHandler } from '../check/scripted.js';
import { DEFAULT_HTTP_LIMITS } from '@omcp/mcp-failure-proxy';
import {
  createRequestGuard,
  refusalOf,
  writeRefusal,
  refusalBody,
  type RefusalReason,
} from '@omcp/mcp-failure-proxy';
import { onWireLines } from './wire-lines.js';

/** The one path the HTTP side answers on. */
export const WIRE_PATH = '/mcp';

/** Serves `handler` on newline-delimited JSON-RPC until `input` ends. */
export function serveStdio(
  handler: ScriptedHandler,
  input: NodeJS.ReadableStream,
  write: (line: string) => void,
): Promise<void> {
  return new Promise((resolve) => {
    onWireLines(
      input,
      (line) => {
        if (line.trim() === '') return;
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          write(`${refusalBody('parse_error')}\n`);
          return;
        }
        for (const response of answerAll(handler, message)) write(`${JSON.stringify(response)}\n`);
      },
      resolve,
    );
  });
}

/** The responses to one message or batch, notifications left unanswered. */
export function answerAll(handler: ScriptedHandler, message: unknown): Record<string, unknown>[] {
  const messages = Array.isArray(message) ? message : [message];
  const out: Record<string, unknown>[] = [];
  for (const m of messages) {
    const response = handler(m);
    if (response !== undefined) out.push(response);
  }
  return out;
}

/** A server listening on loopback. */
export interface LoopbackHttpServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `handler` as a Streamable HTTP endpoint at /mcp on 127.0.0.1 (any free port): POST
 * answered with application/json, 202 for notifications, DELETE (a session's end) 200; no
 * server-initiated stream.
 */
export function startLoopbackHttp(handler: ScriptedHandler): Promise<LoopbackHttpServer> {
  // The same DNS-rebinding protection as the proxy's endpoint: loopback Host and Origin only.
  const guard = createRequestGuard('127.0.0.1', {});
  const server = createServer((req, res) => {
    const refused = refusalOf(guard, req.headers, req.socket.localPort);
    if (refused !== undefined) {
      refuse(res, refused.reason);
      return;
    }
    // A client that aborts its request mid-body: nothing to answer, nothing to record.
    answerHttp(handler, req, res).catch(() => res.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}${WIRE_PATH}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Answers a refused request as the proxy does: its status, `Retry-After`, JSON-RPC body. */
function refuse(res: ServerResponse, reason: RefusalReason, headers = {}): void {
  writeRefusal(res, reason, headers, refusalBody(reason));
}

async function answerHttp(
  handler: ScriptedHandler,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  if (path !== WIRE_PATH) return refuse(res, 'not_found');
  if (req.method === 'DELETE') {
    res.writeHead(200).end();
    return;
  }
  if (req.method !== 'POST') return refuse(res, 'method_not_allowed', { allow: 'POST, DELETE' });
  const text = await readBody(req, () => refuse(res, 'body_too_large'));
  if (text === undefined) return;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return refuse(res, 'parse_error');
  }
  const responses = answerAll(handler, message);
  if (responses.length === 0) {
    res.writeHead(202).end();
    return;
  }
  const body = Array.isArray(message) ? responses : responses[0];
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The body as text; undefined once it passes the proxy's cap, after `tooLarge` answered (before
 * leaving the loop ends the request, so that the client sees the answer).
 */
async function readBody(req: IncomingMessage, tooLarge: () => void): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > DEFAULT_HTTP_LIMITS.maxBodyBytes) {
      req.resume();
      tooLarge();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
