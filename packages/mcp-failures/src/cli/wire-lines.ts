import { StringDecoder } from 'node:string_decoder';

/**
 * The lines of a newline-delimited JSON-RPC stream, as MCP's stdio transport frames them: split
 * at `\n` only (a `\r` before it dropped). Not `node:readline`, which also breaks a line at a
 * lone `\r`, and from Node.js 24 at U+2028 and U+2029, characters JSON may carry unescaped inside
 * strings, so a message holding one would arrive in two halves that are not JSON. UTF-8 split
 * across chunks is joined before decoding; each chunk is searched once, so a long message costs
 * its length, not its square. `onEnd` runs once when the stream ends or closes, after any last
 * unterminated line.
 */
export function onWireLines(
  input: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  onEnd: () => void = () => undefined,
): void {
  const decoder = new StringDecoder('utf8');
  /** The start of the line not yet ended, kept as the parts it arrived in. */
  let parts: string[] = [];
  const take = (text: string): void => {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      parts.push(text.slice(start, end));
      const line = parts.join('');
      parts = [];
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = end + 1;
    }
    if (start < text.length) parts.push(text.slice(start));
  };
  let ended = false;
  const finish = (): void => {
    if (ended) return;
    ended = true;
    take(decoder.end());
    const last = parts.join('');
    parts = [];
    if (last !== '') onLine(last);
    onEnd();
  };
  input.on('data', (chunk: Buffer | string) => {
    take(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  });
  input.on('end', finish);
  input.on('close', finish);
}
