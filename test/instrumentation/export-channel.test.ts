import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ExportChannel,
  MAX_RETRIES,
  retryDelay,
  type ChannelExporter,
} from '../../src/register/export-channel.js';

describe('retryDelay', () => {
  it('follows the collector’s Retry-After, never below 0', () => {
    expect(retryDelay(0, 7_000, 0.5)).toBe(7_000);
    expect(retryDelay(3, -1, 0.5)).toBe(0);
  });

  it('else backs off 1 s, 1.5 s, 2.25 s … with ±20 % jitter, at most 5 s', () => {
    expect([0, 1, 2].map((n) => retryDelay(n, undefined, 0.5))).toEqual([1_000, 1_500, 2_250]);
    expect(retryDelay(0, undefined, 0)).toBe(800);
    expect(retryDelay(0, undefined, 0.999_999)).toBeCloseTo(1_200, 0);
    expect(retryDelay(10, undefined, 0.5)).toBe(5_000);
  });
});

/** A collector on 127.0.0.1 whose answers `answer` decides; it keeps what it was sent. */
async function collector(
  answer: (n: number, res: ServerResponse) => void,
): Promise<{ url: string; requests: IncomingMessage[]; server: Server }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    req.resume();
    req.on('end', () => answer(requests.length, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, requests, server };
}

let servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

/** A channel around the SDK's own OTLP/HTTP JSON trace exporter, and spans to give it. */
async function setUp(answer: (n: number, res: ServerResponse) => void) {
  const c = await collector(answer);
  servers.push(c.server);
  const channel = new ExportChannel<ReadableSpan[]>(
    new OTLPTraceExporter({ url: c.url }) as unknown as ChannelExporter<ReadableSpan[]>,
    (spans) => spans.length,
    2,
  );
  const spans: ReadableSpan[] = [];
  const tracer = new BasicTracerProvider({
    spanProcessors: [
      {
        onStart: () => {},
        onEnd: (span) => void spans.push(span),
        forceFlush: () => Promise.resolve(),
        shutdown: () => Promise.resolve(),
      },
    ],
  }).getTracer('export-channel-test');
  const batch = (): ReadableSpan[] => {
    tracer.startSpan('a span').end();
    return [spans[spans.length - 1]!];
  };
  return { channel, batch, requests: c.requests };
}

describe('ExportChannel', () => {
  it('takes over the SDK exporter’s transport', async () => {
    const { channel } = await setUp((_, res) => res.end('{}'));
    expect(channel.bounded).toBe(true);
  });

  it('retries 503 after the collector’s Retry-After, and delivers', async () => {
    const { channel, batch, requests } = await setUp((n, res) =>
      n <= 2 ? res.writeHead(503, { 'retry-after': '0' }).end() : res.end('{}'),
    );
    channel.exporter.export(batch(), () => {});
    await channel.exporter.forceFlush!();
    expect(requests).toHaveLength(3);
    expect(channel.lost).toBe(0);
  });

  it('gives up after its last retry and counts what it dropped, with why', async () => {
    const { channel, batch, requests } = await setUp((_, res) =>
      res.writeHead(503, { 'retry-after': '0' }).end(),
    );
    channel.exporter.export(batch(), () => {});
    await channel.exporter.forceFlush!();
    expect(requests).toHaveLength(1 + MAX_RETRIES);
    expect([channel.lost, channel.reason]).toEqual([1, 'answered HTTP 503']);
  });

  it('once stopped, an export gets one attempt, and a retry wait ends at once', async () => {
    const { channel, batch, requests } = await setUp((_, res) =>
      res.writeHead(503, { 'retry-after': '60' }).end(),
    );
    channel.exporter.export(batch(), () => {});
    // The first attempt was answered: the channel now waits the collector's 60 s.
    while (requests.length === 0 || channel.unanswered)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const began = Date.now();
    channel.stop();
    channel.exporter.export(batch(), () => {});
    await channel.exporter.forceFlush!();
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(requests).toHaveLength(2);
    expect(channel.lost).toBe(2);
  });

  it('has one export on the wire at a time; past its queue an export is dropped and counted', async () => {
    const { channel, batch, requests } = await setUp(() => {});
    const results: number[] = [];
    for (let i = 0; i < 4; i++) channel.exporter.export(batch(), (r) => results.push(r.code));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requests).toHaveLength(1);
    // Taken at once (the processors' own timers never wait on the collector), the fourth dropped.
    expect(results).toEqual([0, 0, 0, 1]);
    expect([channel.pending, channel.lost, channel.unanswered]).toEqual([3, 1, true]);
  });
});
