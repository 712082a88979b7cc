import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ToolFailureProxy } from './types.js';
import { PARSE_ERROR, REQUEST_TIMEOUT, SERVER_ERROR } from '../shared/jsonrpc.js';

/** A Streamable HTTP endpoint serving a proxy; stop it with `close()`. */
export interface ProxyHttpEndpoint {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `proxy` over Streamable HTTP at `http://host:port/mcp`, one proxy connection per
 * MCP session (created on `initialize`, ended on DELETE or when the endpoint closes).
 */
export async function serveStreamableHttp(
  proxy: ToolFailureProxy,
  host: string,
  port: number,
): Promise<ProxyHttpEndpoint> {
  const { StreamableHTTPServerTransport: Transport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (transport === undefined) {
      if (typeof sid === 'string') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: REQUEST_TIMEOUT, message: 'Session not found' },
          }),
        );
        return;
      }
      // Only an initialize request opens a session (and an upstream connection): anything else
      // without a session is answered here, before any of that is set up or kept.
      if (req.method !== 'POST') {
        noSession(res);
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch (error) {
        if (error instanceof BodyTooLarge) rpcError(res, 413, SERVER_ERROR, error.message);
        else rpcError(res, 400, PARSE_ERROR, 'Parse error: the body is not JSON');
        return;
      }
      if (!isInitializeRequest(body)) {
        noSession(res);
        return;
      }
      const created: StreamableHTTPServerTransport = new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) sessions.delete(created.sessionId);
      };
      await proxy.connect(created);
      await created.handleRequest(req, res, body);
      // An initialize the SDK refused made no session: nothing may keep its connection.
      if (created.sessionId === undefined) await created.close();
      return;
    }
    await transport.handleRequest(req, res);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`mcp-failure-proxy: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The largest request body read before a session exists (the SDK's own limit for a POST). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // The rest is read and dropped, so the answer still reaches the client.
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge(`Payload too large: over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    // A client that goes away mid-body: settled either way (a no-op after 'end').
    req.on('close', () => reject(new Error('the request was aborted')));
  });
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** The answer to a request without a session that is not an `initialize`. */
function noSession(res: ServerResponse): void {
  rpcError(res, 400, SERVER_ERROR, 'Bad Request: no session; the first request must be initialize');
}
