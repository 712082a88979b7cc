// The scripted Streamable HTTP server that check client and check proxy hand to the command
// under test listens on 127.0.0.1: attacked here like every listener of this package.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackHttp, type LoopbackHttpServer } from '../../src/cli/wire-server.js';
import { REFUSALS } from '../../../proxy/src/http-limits.js';
import { clientScript, createScriptedHandler } from '../../src/check/scripted.js';
import { rawRequest } from '../../../proxy/test/raw-http.js';

const send = rawRequest;

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('the scripted HTTP server of check client / check proxy', () => {
  let server: LoopbackHttpServer | undefined;
  let calls = 0;

  async function start(): Promise<string> {
    calls = 0;
    server = await startLoopbackHttp(createScriptedHandler(clientScript('t'), () => (calls += 1)));
    return server.url;
  }

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers a loopback client', async () => {
    const url = await start();
    const answer = await send(url, { body: LIST });
    expect(answer.status).toBe(200);
    expect(
      (JSON.parse(answer.body) as { result: { tools: unknown[] } }).result.tools.length,
    ).toBeGreaterThan(5);
  });

  it('refuses a foreign Host or Origin (DNS rebinding) with 403 and a JSON-RPC body', async () => {
    const url = await start();
    const port = new URL(url).port;
    const foreign: Array<Record<string, string>> = [
      { host: 'evil.example' },
      { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
      { host: `127.0.0.1:${port}`, origin: 'http://evil.example' },
    ];
    for (const headers of foreign) {
      const answer = await send(url, { headers, body: LIST });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: {
          message: expect.stringMatching(
            new RegExp(
              `^(${REFUSALS.host_not_allowed.message}|${REFUSALS.origin_not_allowed.message})$`,
            ),
          ),
        },
      });
    }
  });

  it('garbage, an oversized body and other methods get clear answers; the server goes on', async () => {
    const url = await start();
    expect((await send(url, { body: '{"jsonrpc":' })).status).toBe(400);
    expect((await send(url, { body: 'x'.repeat(5 * 1024 * 1024) })).status).toBe(413);
    // The refusal's text names no method: its Allow header (here POST and DELETE) says which.
    const get = await send(url, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST, DELETE');
    expect(JSON.parse(get.body)).toMatchObject({
      error: { message: REFUSALS.method_not_allowed.message },
    });
    expect(REFUSALS.method_not_allowed.message).not.toMatch(/\b(GET|POST|DELETE)\b/);
    expect((await send(url.replace('/mcp', '/x'), { body: LIST })).status).toBe(404);
    const raw = connect(Number(new URL(url).port), '127.0.0.1');
    const rawAnswer = new Promise<string>((resolve) => {
      let data = '';
      raw.on('data', (d: Buffer) => (data += d.toString()));
      raw.on('close', () => resolve(data));
      raw.on('error', () => resolve(data));
    });
    raw.write('\x16\x03\x01 not http at all\r\n\r\n');
    expect(await rawAnswer).toMatch(/^HTTP\/1\.1 400/);
    expect((await send(url, { body: LIST })).status).toBe(200);
  });

  it('a flood of 500 concurrent requests is answered in full', async () => {
    const url = await start();
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        send(url, {
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: { name: 'export_report', arguments: {} },
          }),
        }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(calls).toBe(500);
  });

  it('a slow client that never finishes does not keep close() waiting', async () => {
    const url = await start();
    const slow = connect(Number(new URL(url).port), '127.0.0.1');
    slow.on('error', () => undefined);
    slow.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: 100\r\n\r\n{"jsonrpc"`);
    await new Promise((r) => setTimeout(r, 100));
    const closing = server!.close();
    server = undefined;
    await expect(closing).resolves.toBeUndefined();
    slow.destroy();
  });
});
