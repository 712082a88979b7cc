/**
 * A web-standard MCP handler (`(request: Request) => Promise<Response>`, what the SDK 2.x
 * `createMcpHandler` and `WebStandardStreamableHTTPServerTransport` serve) behind node:http on
 * 127.0.0.1, as `toNodeHandler` of `@modelcontextprotocol/node` puts one, for the describe block
 * it is called in.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll } from 'vitest';

export type WebHandler = (request: Request) => Promise<Response>;

/** The web `Request` of a node:http request (its whole body read first). */
export async function toWebRequest(req: IncomingMessage, port: number): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    for (const v of Array.isArray(value) ? value : [value])
      if (v !== undefined) headers.append(name, v);
  const method = req.method ?? 'GET';
  return new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
  });
}

/** Writes a web `Response` to a node:http response, streaming its body. */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body !== null) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/**
 * The sessionful Streamable HTTP idiom (2025-11-25): one server per session, a new one from
 * `make()`, sessions by `Mcp-Session-Id`.
 */
export function sessionfulHandler(
  make: () => {
    connect(transport: WebStandardStreamableHTTPServerTransport): Promise<void>;
  },
): WebHandler {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async (request) => {
    const id = request.headers.get('mcp-session-id');
    let transport = id === null ? undefined : sessions.get(id);
    if (transport === undefined) {
      const created = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      });
      await make().connect(created);
      transport = created;
    }
    return transport.handleRequest(request);
  };
}

/**
 * Serves `make()`'s handler from `beforeAll` to `afterAll`; `url()` is its `/mcp` endpoint and
 * `stop()` closes it early.
 */
export function serveOnLoopback(make: () => WebHandler): {
  url: () => URL;
  stop: () => Promise<void>;
} {
  let http: Server | undefined;
  let port = 0;
  beforeAll(async () => {
    const handle = make();
    http = createServer((req, res) => {
      toWebRequest(req, port)
        .then(handle)
        .then((response) => writeWebResponse(res, response))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    port = (http.address() as AddressInfo).port;
  });
  const stop = async (): Promise<void> => {
    if (http === undefined) return;
    http.closeAllConnections();
    await new Promise((resolve) => http!.close(resolve));
    http = undefined;
  };
  afterAll(stop);
  return { url: () => new URL(`http://127.0.0.1:${port}/mcp`), stop };
}
