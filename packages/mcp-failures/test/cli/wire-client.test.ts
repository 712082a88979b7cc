// The checkers' raw JSON-RPC client: answers read from the wire as they came, over stdio lines
// and over Streamable HTTP (JSON and SSE bodies), against the checkers' own raw server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpWire, messagesOfBody, stdioWire } from '../../src/cli/wire-client.js';
import { startLoopbackHttp, type LoopbackHttpServer } from '../../src/cli/wire-server.js';

describe('messagesOfBody', () => {
  it('reads a JSON body, a batch and an empty body', () => {
    expect(messagesOfBody('application/json', '{"id":1}')).toEqual([{ id: 1 }]);
    expect(messagesOfBody('application/json', '[{"id":1},{"id":2}]')).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
    expect(messagesOfBody('application/json', '  ')).toEqual([]);
  });

  it('reads the data of each SSE event, CRLF or LF, multi-line data joined, comments and non-JSON skipped', () => {
    const body =
      ': comment\n\nevent: message\ndata: {"id":1}\n\nid: 7\r\ndata:{"id":\r\ndata: 2}\r\n\r\ndata: not json\n\n';
    expect(messagesOfBody('text/event-stream; charset=utf-8', body)).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
  });
});

describe('stdioWire', () => {
  it('matches answers to requests by id, answers the peer’s requests, and ends waiting ones when lost', async () => {
    const sent: string[] = [];
    const wire = stdioWire((line) => sent.push(line), 10_000);
    const first = wire.session.request('tools/call', { name: 'a' });
    const second = wire.session.request('tools/list', {});
    expect(sent.map((l) => JSON.parse(l) as unknown)).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ]);
    wire.onLine('not json');
    wire.onLine('{"jsonrpc":"2.0","id":9,"method":"ping"}');
    wire.onLine('{"jsonrpc":"2.0","id":10,"method":"roots/list"}');
    expect(JSON.parse(sent[2] ?? '')).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    expect(JSON.parse(sent[3] ?? '')).toMatchObject({ id: 10, error: { code: -32601 } });
    wire.onLine('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":{"k":1}}}');
    expect(await first).toEqual({
      kind: 'rpc-error',
      code: -32602,
      message: 'bad',
      data: { k: 1 },
    });
    wire.lost('gone');
    expect(await second).toEqual({ kind: 'no-answer', detail: 'gone' });
    await wire.session.notify('notifications/initialized');
    expect(JSON.parse(sent.at(-1) ?? '')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/initialized',
    });
  });

  it('a request with no answer in time is no answer', async () => {
    const wire = stdioWire(() => undefined, 20);
    expect(await wire.session.request('x', {})).toEqual({
      kind: 'no-answer',
      detail: 'no answer within 20 ms',
    });
  });
});

describe('httpWire', () => {
  let loopback: LoopbackHttpServer | undefined;
  let sse: Server | undefined;
  afterEach(async () => {
    await loopback?.close();
    loopback = undefined;
    await new Promise<void>((done) => (sse === undefined ? done() : sse.close(() => done())));
    sse = undefined;
  });

  it('posts each request and reads the result as it came', async () => {
    loopback = await startLoopbackHttp((m) => {
      const message = m as { id?: unknown; method?: string };
      if (message.id === undefined) return undefined;
      return message.method === 'fail'
        ? { jsonrpc: '2.0', id: message.id, error: { code: -32000, message: 'no' } }
        : { jsonrpc: '2.0', id: message.id, result: { _meta: { b: 1, a: 2 } } };
    });
    const wire = httpWire(loopback.url, 5_000);
    const answer = await wire.request('tools/call', {});
    expect(answer).toEqual({ kind: 'result', result: { _meta: { b: 1, a: 2 } } });
    expect(
      answer.kind === 'result' && Object.keys((answer.result as { _meta: object })._meta),
    ).toEqual(['b', 'a']);
    expect(await wire.request('fail', {})).toEqual({
      kind: 'rpc-error',
      code: -32000,
      message: 'no',
    });
    await expect(wire.notify('notifications/initialized')).resolves.toBeUndefined();
  });

  it('reads an SSE answer, keeps the session id and the negotiated version', async () => {
    const seen: Array<Record<string, unknown>> = [];
    sse = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ ...req.headers });
        const message = JSON.parse(body) as { id: number; method: string };
        const result =
          message.method === 'initialize' ? { protocolVersion: '2025-06-18' } : { ok: true };
        res
          .writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' })
          .end(
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`,
          );
      });
    });
    await new Promise<void>((done) => sse?.listen(0, '127.0.0.1', () => done()));
    const { port } = sse.address() as AddressInfo;
    const wire = httpWire(`http://127.0.0.1:${port}/mcp`, 5_000);
    expect(await wire.request('initialize', {})).toEqual({
      kind: 'result',
      result: { protocolVersion: '2025-06-18' },
    });
    expect(await wire.request('tools/list', {})).toEqual({ kind: 'result', result: { ok: true } });
    expect(seen[1]).toMatchObject({
      'mcp-session-id': 's-1',
      'mcp-protocol-version': '2025-06-18',
    });
  });

  it('a refusal or nobody listening is no answer, in one line', async () => {
    loopback = await startLoopbackHttp(() => undefined);
    const refused = await httpWire(loopback.url.replace('/mcp', '/x'), 5_000).request('m', {});
    expect(refused).toEqual({ kind: 'no-answer', detail: 'no response to the request' });
    const url = loopback.url;
    await loopback.close();
    loopback = undefined;
    const nobody = await httpWire(url, 5_000).request('m', {});
    expect(nobody.kind).toBe('no-answer');
  });
});
