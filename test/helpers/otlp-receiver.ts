import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as received over OTLP/HTTP JSON, flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  serviceName: string | undefined;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
}

interface OtlpKeyValue {
  key: string;
  value: Record<string, unknown>;
}

/** A real OTLP/HTTP (JSON) receiver on 127.0.0.1, for child processes that export telemetry. */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** The raw JSON bodies POSTed to /v1/traces, as the exporter sent them. */
  traceBodies: string[];
  logs: Array<{ body: unknown; traceId: string | undefined; attributes: Record<string, unknown> }>;
  /** The raw JSON bodies POSTed to /v1/logs. */
  logBodies: string[];
  metricsRequests: number;
  /** The raw JSON bodies POSTed to /v1/metrics. */
  metricBodies: string[];
  /** Resolves when `predicate` holds for the received spans, or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function anyValue(v: Record<string, unknown> | undefined): unknown {
  if (v === undefined) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v)
    return ((v.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(
      anyValue,
    );
  return v;
}

function attrs(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

/** Starts the receiver; stop it with `close()`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const traceBodies: string[] = [];
  const logs: OtlpReceiver['logs'] = [];
  const logBodies: string[] = [];
  let metricsRequests = 0;
  const metricBodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as Record<string, unknown>;
        if (req.url === '/v1/traces') {
          traceBodies.push(raw);
          for (const rs of (body.resourceSpans as Array<Record<string, unknown>>) ?? []) {
            const resource = attrs(
              (rs.resource as { attributes?: OtlpKeyValue[] } | undefined)?.attributes,
            );
            for (const ss of (rs.scopeSpans as Array<Record<string, unknown>>) ?? []) {
              for (const s of (ss.spans as Array<Record<string, unknown>>) ?? []) {
                spans.push({
                  traceId: String(s.traceId),
                  spanId: String(s.spanId),
                  parentSpanId:
                    typeof s.parentSpanId === 'string' && s.parentSpanId !== ''
                      ? s.parentSpanId
                      : undefined,
                  name: String(s.name),
                  kind: Number(s.kind),
                  serviceName: resource['service.name'] as string | undefined,
                  attributes: attrs(s.attributes as OtlpKeyValue[]),
                  events: (
                    (s.events as Array<{ name: string; attributes?: OtlpKeyValue[] }>) ?? []
                  ).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
                });
              }
            }
          }
        } else if (req.url === '/v1/logs') {
          logBodies.push(raw);
          for (const rl of (body.resourceLogs as Array<Record<string, unknown>>) ?? []) {
            for (const sl of (rl.scopeLogs as Array<Record<string, unknown>>) ?? []) {
              for (const l of (sl.logRecords as Array<Record<string, unknown>>) ?? []) {
                logs.push({
                  body: anyValue(l.body as Record<string, unknown>),
                  traceId: l.traceId as string | undefined,
                  attributes: attrs(l.attributes as OtlpKeyValue[]),
                });
              }
            }
          }
        } else if (req.url === '/v1/metrics') {
          metricsRequests++;
          metricBodies.push(raw);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    traceBodies,
    metricBodies,
    logs,
    logBodies,
    get metricsRequests() {
      return metricsRequests;
    },
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(
            `timed out waiting for spans; have: ${spans.map((s) => s.name).join(', ')}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
