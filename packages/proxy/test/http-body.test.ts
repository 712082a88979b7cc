// The body reader of the proxy's Streamable HTTP endpoint (packages/proxy/src/http-body.ts), directly:
// each body within its own limit and the endpoint's budget of bytes held, given back every time.
import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyReader } from '../src/http-body.js';

/** A request body as a stream, with the headers the reader looks at. */
function body(headers: IncomingHttpHeaders = {}): PassThrough & { headers: IncomingHttpHeaders } {
  return Object.assign(new PassThrough(), { headers });
}

describe('BodyReader', () => {
  it('parses a JSON body and holds its bytes only while it is read', async () => {
    const reader = new BodyReader(1024);
    const req = body();
    const read = reader.readJson(req, 100);
    req.write('{"jsonrpc":');
    await new Promise((r) => setImmediate(r));
    expect(reader.buffered).toBe(11);
    req.end('"2.0"}');
    await expect(read).resolves.toEqual({ value: { jsonrpc: '2.0' } });
    expect(reader.buffered).toBe(0);
  });

  it('refuses by Content-Length before reading, and while reading past the limit', async () => {
    const reader = new BodyReader(1024);
    const declared = body({ 'content-length': '101' });
    await expect(reader.readJson(declared, 100)).resolves.toBe('body_too_large');
    const chunked = body();
    const read = reader.readJson(chunked, 10);
    chunked.write('[1,2,3,4,5,6]');
    await expect(read).resolves.toBe('body_too_large');
    expect(reader.buffered).toBe(0);
  });

  it('refuses a body that would pass the endpoint budget, and keeps the other one counted', async () => {
    const reader = new BodyReader(10);
    const first = body();
    const firstRead = reader.readJson(first, 100);
    first.write('[1,2,3,');
    await new Promise((r) => setImmediate(r));
    const second = body();
    const secondRead = reader.readJson(second, 100);
    second.write('[4,5,6,7]');
    await expect(secondRead).resolves.toBe('buffer_limit');
    expect(reader.buffered).toBe(7);
    first.end('4]');
    await expect(firstRead).resolves.toEqual({ value: [1, 2, 3, 4] });
    expect(reader.buffered).toBe(0);
  });

  it('answers parse_error for a body that is not JSON, and rejects a body cut off', async () => {
    const reader = new BodyReader(1024);
    const junk = body();
    const junkRead = reader.readJson(junk, 100);
    junk.end('{not json');
    await expect(junkRead).resolves.toBe('parse_error');
    const cut = body();
    const cutRead = reader.readJson(cut, 100);
    cut.write('{"a":');
    await new Promise((r) => setImmediate(r));
    cut.destroy();
    await expect(cutRead).rejects.toThrow('the request was aborted');
    expect(reader.buffered).toBe(0);
  });
});
