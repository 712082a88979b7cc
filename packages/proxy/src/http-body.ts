/**
 * The request bodies of the proxy's Streamable HTTP endpoint: each read whole and parsed as JSON,
 * within its own size limit and the endpoint's budget of bytes being read at once. The count of
 * bytes held changes here and nowhere else.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/** Why a body is refused instead of read. */
export type BodyRefusal = 'body_too_large' | 'buffer_limit' | 'parse_error';

/** What the reader needs of a request: its headers and its body as a stream. */
export type BodySource = Pick<Readable, 'on' | 'removeAllListeners' | 'resume'> & {
  readonly headers: IncomingHttpHeaders;
};

class BodyRefused extends Error {
  constructor(readonly reason: 'body_too_large' | 'buffer_limit') {
    super(reason);
  }
}

/** Reads the bodies of one endpoint, holding at most `maxBufferedBytes` of them at once. */
export class BodyReader {
  private held = 0;

  constructor(private readonly maxBufferedBytes: number) {}

  /** Bytes of the bodies being read now. */
  get buffered(): number {
    return this.held;
  }

  /**
   * The JSON body of `req` in `{ value }`, or the refusal it earns: larger than `max` bytes
   * (by `Content-Length` before reading, or while reading), more than the endpoint's budget
   * holds at once, or not JSON. Rejects when the request fails or is aborted mid-body.
   */
  async readJson(req: BodySource, max: number): Promise<{ value: unknown } | BodyRefusal> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) return 'body_too_large';
    let text: string;
    try {
      text = await this.read(req, max);
    } catch (error) {
      if (error instanceof BodyRefused) return error.reason;
      throw error;
    }
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      return 'parse_error';
    }
  }

  private read(req: BodySource, max: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const release = (): void => {
        this.hold(-size);
        size = 0;
      };
      const refuse = (reason: 'body_too_large' | 'buffer_limit'): void => {
        release();
        // The rest is dropped unread; the answer says so and the connection closes.
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyRefused(reason));
      };
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        this.hold(chunk.length);
        if (size > max) return refuse('body_too_large');
        if (this.held > this.maxBufferedBytes) return refuse('buffer_limit');
        chunks.push(chunk);
      });
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        release();
        resolve(text);
      });
      req.on('error', (error) => {
        release();
        reject(error);
      });
      // A client that goes away mid-body: settled either way (a no-op after 'end').
      req.on('close', () => {
        release();
        reject(new Error('the request was aborted'));
      });
    });
  }

  /** The one place the count of bytes held changes. */
  private hold(bytes: number): void {
    this.held += bytes;
  }
}
