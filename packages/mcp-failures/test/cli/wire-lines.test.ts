import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { onWireLines } from '../../src/cli/wire-lines.js';

/** The lines `chunks` make, and how many times the end was reported. */
async function linesOf(chunks: Array<Buffer | string>): Promise<{ lines: string[]; ends: number }> {
  const input = new PassThrough();
  const lines: string[] = [];
  let ends = 0;
  const ended = new Promise<void>((resolve) =>
    onWireLines(
      input,
      (line) => lines.push(line),
      () => {
        ends++;
        resolve();
      },
    ),
  );
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await ended;
  await new Promise((resolve) => setImmediate(resolve));
  return { lines, ends };
}

describe('onWireLines: newline-delimited JSON-RPC framing', () => {
  it('keeps a message with U+2028 and U+2029 in a string whole (node:readline splits it on Node.js 24)', async () => {
    const message = JSON.stringify({ id: 1, result: { text: 'a\u2028b\u2029c 😀' } });
    const { lines } = await linesOf([`${message}\n`]);
    expect(lines).toEqual([message]);
    expect(JSON.parse(lines[0]!)).toEqual({ id: 1, result: { text: 'a\u2028b\u2029c 😀' } });
  });

  it('keeps a message with a lone \\r between its tokens whole (node:readline splits it on every version)', async () => {
    const { lines } = await linesOf(['{"a":\r1}\n']);
    expect(lines).toEqual(['{"a":\r1}']);
    expect(JSON.parse(lines[0]!)).toEqual({ a: 1 });
  });

  it('reads a message of 8 MiB in 64 KiB chunks as one line', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(8 * 2 ** 20) });
    const bytes = Buffer.from(`${big}\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536));
    const { lines } = await linesOf(chunks);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBe(big.length);
  });

  it('joins UTF-8 split across chunks, splits several messages in one chunk, drops the \\r of \\r\\n', async () => {
    const bytes = Buffer.from('{"t":"ü😀"}\n', 'utf8');
    const { lines } = await linesOf([
      bytes.subarray(0, 7),
      bytes.subarray(7),
      '{"a":1}\r\n{"b":2}\n',
    ]);
    expect(lines).toEqual(['{"t":"ü😀"}', '{"a":1}', '{"b":2}']);
  });

  it('hands on a last line without a newline, and reports the end once', async () => {
    const { lines, ends } = await linesOf(['{"a":1}\n{"b":']);
    expect(lines).toEqual(['{"a":1}', '{"b":']);
    expect(ends).toBe(1);
  });
});
