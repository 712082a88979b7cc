// The checkers' raw JSON-RPC server: its stdio side, and the answers of its HTTP side come from
// the proxy's refusal table (packages/mcp-failures/test/cli/check-scripted-http.test.ts attacks the HTTP side).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  answerAll,
  serveStdio,
  startLoopbackHttp,
  type LoopbackHttpServer,
} from '../../src/cli/wire-server.js';
import { DEFAULT_HTTP_LIMITS, REFUSALS, refusalBody } from '../../../proxy/src/http-limits.js';
import type { ScriptedHandler } from '../../src/check/scripted.js';
import { rawRequest } from '../../../proxy/test/raw-http.js';

/** Echoes a request's params; no answer to a notification. */
const echo: ScriptedHandler = (m) => {
  const message = m as { id?: unknown; params?: unknown };
  return message.id === undefined
    ? undefined
    : { jsonrpc: '2.0', id: message.id, result: message.params ?? {} };
};

/** One raw request to the scripted server (packages/proxy/test/raw-http.ts). */
const send = (url: string, method: string, body: string) => rawRequest(url, { method, body });

describe('serveStdio', () => {
  it('answers each line, a batch with every response, a notification with nothing, garbage with the parse error', async () => {
    const input = new PassThrough();
    const lines: string[] = [];
    const served = serveStdio(echo, input, (line) => lines.push(line));
    input.write('{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1}}\n');
    input.write('[{"jsonrpc":"2.0","id":2,"method":"b"},{"jsonrpc":"2.0","method":"n"}]\n');
    input.write('\n{"jsonrpc":"2.0","method":"n"}\n');
    input.write('{"jsonrpc":\n');
    input.end();
    await served;
    expect(lines).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{"x":1}}\n',
      '{"jsonrpc":"2.0","id":2,"result":{}}\n',
      `${refusalBody('parse_error')}\n`,
    ]);
  });

  it('answerAll drops what the handler leaves unanswered', () => {
    expect(answerAll(echo, [{ method: 'n' }, { id: 3 }])).toEqual([
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
  });
});

describe('startLoopbackHttp', () => {
  let server: LoopbackHttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers a POST with the response, a notification with 202, DELETE with 200', async () => {
    server = await startLoopbackHttp(echo);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const answer = await send(
      server.url,
      'POST',
      '{"jsonrpc":"2.0","id":"a","method":"m","params":{"k":"v"}}',
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', id: 'a', result: { k: 'v' } });
    const batch = await send(server.url, 'POST', '[{"jsonrpc":"2.0","id":1,"method":"m"}]');
    expect(JSON.parse(batch.body)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect((await send(server.url, 'POST', '{"jsonrpc":"2.0","method":"n"}')).status).toBe(202);
    expect((await send(server.url, 'DELETE', '')).status).toBe(200);
  });

  it.each([
    ['not_found', '/elsewhere', 'POST', '{}'],
    ['method_not_allowed', '/mcp', 'GET', ''],
    ['parse_error', '/mcp', 'POST', '{"jsonrpc":'],
    ['body_too_large', '/mcp', 'POST', 'x'.repeat(DEFAULT_HTTP_LIMITS.maxBodyBytes + 1)],
  ] as const)('refuses as the proxy does: %s', async (reason, path, method, body) => {
    server = await startLoopbackHttp(echo);
    const answer = await send(server.url.replace('/mcp', path), method, body);
    expect(answer.status).toBe(REFUSALS[reason].status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body).toBe(refusalBody(reason));
  });

  it('a body at the cap is read', async () => {
    server = await startLoopbackHttp(echo);
    const message = '{"jsonrpc":"2.0","id":1,"method":"m"}';
    const body = message.padEnd(DEFAULT_HTTP_LIMITS.maxBodyBytes, ' ');
    expect((await send(server.url, 'POST', body)).status).toBe(200);
  });
});
