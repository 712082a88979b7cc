// A local OTLP/HTTP receiver that counts what exporters send it: request body bytes by signal
// (traces, metrics, logs) and encoding (protobuf or JSON), as they arrive on the wire (gzip off).
// JSON bodies are kept too, so the volume section can say what the bytes carried. Used by the
// volume section (bench/lib/volume-run.mjs) and as the sink of the gateway section's proxy rows.
import { createServer } from 'node:http';

const SIGNALS = { '/v1/traces': 'traces', '/v1/metrics': 'metrics', '/v1/logs': 'logs' };

/** Starts the receiver on 127.0.0.1; `url` is the base for OTEL_EXPORTER_OTLP_ENDPOINT. */
export async function startOtlpCounter() {
  const counts = {};
  const bodies = { traces: [], metrics: [], logs: [] };
  const reset = () => {
    for (const s of Object.values(SIGNALS))
      counts[s] = { bytes: 0, requests: 0, encoding: undefined };
    for (const s of Object.keys(bodies)) bodies[s] = [];
  };
  reset();
  const server = createServer((req, res) => {
    const signal = SIGNALS[req.url?.split('?')[0] ?? ''];
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = (req.headers['content-type'] ?? '').includes('json');
      if (signal !== undefined) {
        const c = counts[signal];
        c.bytes += body.length;
        c.requests++;
        c.encoding = json ? 'json' : 'protobuf';
        if (json) bodies[signal].push(JSON.parse(body.toString('utf8')));
      }
      // An empty success answers both encodings (OTLP: a full success has no partial_success).
      res.writeHead(signal === undefined ? 404 : 200, {
        'content-type': json ? 'application/json' : 'application/x-protobuf',
      });
      res.end(json ? '{}' : undefined);
    });
  });
  server.keepAliveTimeout = 600_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    counts,
    bodies,
    reset,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
