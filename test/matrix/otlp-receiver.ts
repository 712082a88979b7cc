import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A span as received over OTLP/HTTP JSON, flattened. */
export interface ReceivedSpan {
  run: string;
  scope: string;
  name: string;
  /** OTLP span kind: 2 SERVER, 3 CLIENT. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
}

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpTraces {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: Array<{ key: string; value: OtlpValue }>;
      }>;
    }>;
  }>;
}

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

/**
 * A minimal OTLP/HTTP receiver for traces in JSON on 127.0.0.1. Each run exports to its own
 * path prefix (`/<run>/v1/traces`), so many child processes can share one receiver.
 */
export class OtlpReceiver {
  private readonly spans = new Map<string, ReceivedSpan[]>();
  private readonly rejected = new Map<string, string[]>();
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The value for `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` of one run. */
  endpoint(run: string): string {
    return `http://127.0.0.1:${this.port}/${run}/v1/traces`;
  }

  spansOf(run: string): ReceivedSpan[] {
    return this.spans.get(run) ?? [];
  }

  /** Requests of a run that were not OTLP JSON traces (wrong protocol or path). */
  rejectedOf(run: string): string[] {
    return this.rejected.get(run) ?? [];
  }

  /** Waits until `done` holds for the run's spans, or the time is up; returns the spans. */
  async waitFor(
    run: string,
    done: (spans: ReceivedSpan[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<ReceivedSpan[]> {
    const end = Date.now() + timeoutMs;
    while (!done(this.spansOf(run)) && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.spansOf(run);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/([^/]+)\/v1\/traces$/.exec(req.url ?? '');
      const run = m?.[1] ?? '(unknown)';
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || m === null || !type.startsWith('application/json')) {
        this.reject(run, `${req.method ?? '?'} ${req.url ?? '?'} ${type}`);
        res.writeHead(415).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        this.add(run, JSON.parse(body.toString('utf8')) as OtlpTraces);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (err) {
        this.reject(run, String(err));
        res.writeHead(400).end();
      }
    });
  }

  private reject(run: string, why: string): void {
    const list = this.rejected.get(run) ?? [];
    list.push(why);
    this.rejected.set(run, list);
  }

  private add(run: string, body: OtlpTraces): void {
    const list = this.spans.get(run) ?? [];
    for (const rs of body.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          list.push({
            run,
            scope: ss.scope?.name ?? '',
            name: s.name,
            kind: s.kind,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId === '' ? undefined : s.parentSpanId,
            attributes: Object.fromEntries(
              (s.attributes ?? []).map((a) => [a.key, valueOf(a.value)]),
            ),
          });
        }
      }
    }
    this.spans.set(run, list);
  }
}
