/**
 * The 2026-07-28 side of a `revision: '2026-07-28'` endpoint: the SDK 2.x `createMcpHandler`
 * (modern requests only; the endpoint serves earlier revisions as a stateless one does) behind
 * the endpoint's own access checks and limits, which have already passed when `serve` runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolFailureProxy } from './types.js';
import { modernServerOf } from './proxy.js';
import { loadModernSdk } from './sdk.js';

/** The 2026-07-28 front of one endpoint. */
export interface ModernFront {
  /** Whether a POST (its parsed body) is of the 2026-07-28 revision, by the SDK's own rule. */
  isModern(req: IncomingMessage, body: unknown): Promise<boolean>;
  /** Answers one 2026-07-28 POST whose body is `body`; ends when the response has been written. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * The 2026-07-28 front for `proxy`. Rejects with `ModernSdkMissing` when
 * `@modelcontextprotocol/server` 2.x cannot be loaded, and with a `TypeError` for an object not
 * made by `createToolFailureProxy`.
 */
export async function createModernFront(proxy: ToolFailureProxy): Promise<ModernFront> {
  const make = modernServerOf(proxy);
  if (make === undefined)
    throw new TypeError('the 2026-07-28 revision needs a proxy made by createToolFailureProxy');
  const sdk = await loadModernSdk();
  // Earlier revisions never reach it (isModern routes them to the stateless path), so 'reject'.
  const handler = sdk.createMcpHandler(() => make(sdk), { legacy: 'reject' });
  return {
    async isModern(req, body) {
      return !(await sdk.isLegacyRequest(webRequest(req, undefined), body));
    },
    async serve(req, res, body) {
      // A client gone before its answer: the SDK's exchange, and with it the upstream request, ends.
      const gone = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const response = await handler.fetch(webRequest(req, gone.signal), { parsedBody: body });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body !== null)
        for await (const chunk of response.body) {
          if (res.destroyed) break;
          res.write(chunk);
        }
      res.end();
    },
    close: () => handler.close(),
  };
}

/** Headers describing the body the endpoint has read itself, not the one handed on parsed. */
const BODY_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** The request as a web `Request` without its body (the SDK is given it parsed). */
function webRequest(req: IncomingMessage, signal: AbortSignal | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || BODY_HEADERS.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(`http://localhost${req.url ?? '/mcp'}`, {
    method: req.method ?? 'POST',
    headers,
    ...(signal === undefined ? {} : { signal }),
  });
}
