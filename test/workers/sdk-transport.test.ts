/**
 * A remote MCP server on Cloudflare Workers, run on the real workerd: the MCP SDK 1.32.2 server
 * over its web-standard Streamable HTTP transport, instrumented with `instrumentServer()`, its
 * telemetry exported by the application's OpenTelemetry SDK over fetch and flushed with
 * `ctx.waitUntil` (test/fixtures/workers/worker.mjs, the lines docs/configuration.md shows),
 * through the scenario of ./scenario.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../observability/helpers.js';
import { describeWorker } from './scenario.js';
import { FIXTURE } from './workerd.js';

describeWorker({
  title: 'the MCP SDK 1.32.2 Streamable HTTP transport on workerd, instrumented by hand',
  files: { worker: 'worker.mjs', config: 'wrangler.json' },
  service: 'mcp-worker',
});

describe('the documented Worker', () => {
  it('docs/configuration.md shows lines of the Worker it runs', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const at = doc.indexOf('<!-- user-code: workers -->');
    expect(at).toBeGreaterThan(-1);
    const block = /```js\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
    const documented = block
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('//'));
    const worker = new Set(
      readFileSync(join(FIXTURE, 'worker.mjs'), 'utf8')
        .split('\n')
        .map((l) => l.trim()),
    );
    expect(documented.length).toBeGreaterThan(10);
    for (const line of documented) expect(worker.has(line), `worker.mjs lacks: ${line}`).toBe(true);
  });
});
