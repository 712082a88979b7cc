/**
 * The checkers' one raw JSON-RPC client, below any SDK: over a child's stdin/stdout or over
 * Streamable HTTP (JSON or SSE bodies), so that each result is judged exactly as it arrived
 * (parsed from the wire, not rebuilt by an SDK's schemas). `check proxy` speaks to the
 * intermediary under test through it.
 */
import type { CallAnswer } from '../check/server.js';
import {
  envelopeHeaders,
  withEnvelope,
  METHOD_NOT_FOUND,
  isRecord,
  firstLineOf,
} from '@omcp/tool-failure/wire';

/** An open JSON-RPC connection to a peer (the intermediary under test). */
export interface WireSession {
  request(method: string, params: Record<string, unknown>): Promise<CallAnswer>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
}

type Pending = Map<number, (answer: CallAnswer) => void>;

function answerOf(message: Record<string, unknown>): CallAnswer {
  if (isRecord(message.error)) {
    const e = message.error;
    return {
      kind: 'rpc-error',
      code: typeof e.code === 'number' ? e.code : 0,
      message: typeof e.message === 'string' ? e.message : '',
      ...(e.data === undefined ? {} : { data: e.data }),
    };
  }
  return { kind: 'result', result: message.result };
}

/**
 * A session over a child's stdio: `send` writes one line to its stdin; feed each line of its
 * stdout to the returned `onLine`.
 */
export function stdioWire(
  send: (line: string) => void,
  timeoutMs: number,
): { session: WireSession; onLine(line: string): void; lost(detail: string): void } {
  const pending: Pending = new Map();
  let nextId = 1;
  const onLine = (line: string): void => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (!isRecord(message)) return;
    if (typeof message.method === 'string') {
      // A request from the peer (ping, roots/list): answered, never judged.
      if (message.id !== undefined)
        send(
          `${JSON.stringify({ jsonrpc: '2.0', id: message.id, ...(message.method === 'ping' ? { result: {} } : { error: { code: METHOD_NOT_FOUND, message: 'Method not found' } }) })}\n`,
        );
      return;
    }
    if (typeof message.id !== 'number') return;
    const resolve = pending.get(message.id);
    pending.delete(message.id);
    resolve?.(answerOf(message));
  };
  const session: WireSession = {
    request(method, params) {
      const id = nextId++;
      return new Promise<CallAnswer>((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve({ kind: 'no-answer', detail: `no answer within ${timeoutMs} ms` });
        }, timeoutMs);
        pending.set(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        send(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    },
    notify(method, params) {
      send(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
      return Promise.resolve();
    },
  };
  const lost = (detail: string): void => {
    for (const [id, resolve] of pending) {
      pending.delete(id);
      resolve({ kind: 'no-answer', detail });
    }
  };
  return { session, onLine, lost };
}

/** The JSON-RPC messages of a Streamable HTTP response body (JSON, or an SSE stream). */
export function messagesOfBody(contentType: string, body: string): unknown[] {
  if (contentType.includes('text/event-stream')) {
    const out: unknown[] = [];
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data === '') continue;
      try {
        out.push(JSON.parse(data));
      } catch {
        // not a JSON-RPC message
      }
    }
    return out;
  }
  if (body.trim() === '') return [];
  const parsed: unknown = JSON.parse(body);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * A session over Streamable HTTP at `url`: one POST per message, session id kept. With
 * `modern`, the 2026-07-28 revision: no session, and each request carries the revision's
 * envelope in `_meta` (`modern` is the client's identity there) and its headers.
 */
export function httpWire(
  url: string,
  timeoutMs: number,
  modern?: { name: string; version: string },
): WireSession {
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let nextId = 1;
  const post = async (message: Record<string, unknown>): Promise<unknown[]> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
    if (protocolVersion !== undefined) headers['mcp-protocol-version'] = protocolVersion;
    if (modern !== undefined && typeof message.method === 'string')
      Object.assign(headers, envelopeHeaders(message.method, message.params));
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(timeoutMs),
    });
    sessionId = res.headers.get('mcp-session-id') ?? sessionId;
    const text = await res.text();
    if (res.status === 202) return [];
    const messages = messagesOfBody(res.headers.get('content-type') ?? '', text);
    if (!res.ok && messages.length === 0) throw new Error(`HTTP ${res.status}`);
    return messages;
  };
  return {
    async request(method, params) {
      const id = nextId++;
      try {
        const sent = modern === undefined ? params : withEnvelope(params, modern);
        const messages = await post({ jsonrpc: '2.0', id, method, params: sent });
        const reply = messages.find((m) => isRecord(m) && m.id === id);
        if (!isRecord(reply)) return { kind: 'no-answer', detail: 'no response to the request' };
        const answer = answerOf(reply);
        if (method === 'initialize' && answer.kind === 'result' && isRecord(answer.result)) {
          const v = answer.result.protocolVersion;
          if (typeof v === 'string') protocolVersion = v;
        }
        return answer;
      } catch (error) {
        return { kind: 'no-answer', detail: firstLineOf(error) };
      }
    },
    async notify(method, params) {
      await post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }).catch(() => undefined);
    },
  };
}
