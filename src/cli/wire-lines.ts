import { StringDecoder } from 'node:string_decoder';

/**
 * The lines of a newline-delimited JSON-RPC stream, as MCP's stdio transport frames them: split
 * at `\n` only (a `\r` before it dropped). Not `node:readline`, which from Node.js 24 also breaks
 * a line at U+2028 and U+2029, characters JSON leaves unescaped inside strings, so a message
 * carrying one would arrive in two halves that are not JSON. UTF-8 split across chunks is joined
 * before decoding. `onEnd` runs once when the stream ends or closes, after any last unterminated
 * line.
 */
export function onWireLines(
  input: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  onEnd: () => void = () => undefined,
): void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const take = (text: string): void => {
    pending += text;
    let end = pending.indexOf('\n');
    while (end >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      end = pending.indexOf('\n');
    }
  };
  let ended = false;
  const finish = (): void => {
    if (ended) return;
    ended = true;
    take(decoder.end());
    if (pending !== '') onLine(pending);
    pending = '';
    onEnd();
  };
  input.on('data', (chunk: Buffer | string) => {
    take(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  });
  input.on('end', finish);
  input.on('close', finish);
}
