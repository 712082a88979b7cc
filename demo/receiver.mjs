// The demo's embedded collector: an OTLP/HTTP JSON receiver on 127.0.0.1 that appends every
// traces body to a file, one {"resourceSpans":[...]} per line: the format `mcp-failures lookup
// --file` reads. Metrics and logs are accepted and counted.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';

export async function startReceiver(file) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '');
  const counts = { traces: 0, metrics: 0, logs: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        JSON.parse(body);
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (req.url === '/v1/traces') {
        counts.traces++;
        appendFileSync(file, `${body.replace(/\n/g, ' ')}\n`);
      } else if (req.url === '/v1/metrics') counts.metrics++;
      else if (req.url === '/v1/logs') counts.logs++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    counts,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
