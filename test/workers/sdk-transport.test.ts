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

/** The lines of the code block after `<!-- user-code: <name> -->` in docs/configuration.md. */
function documented(name: string): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const at = doc.indexOf(`<!-- user-code: ${name} -->`);
  expect(at, name).toBeGreaterThan(-1);
  return /```js\n([\s\S]*?)```/
    .exec(doc.slice(at))![1]!
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('//'));
}

describe('the documented Workers', () => {
  it('docs/configuration.md shows lines of the Workers the tests run', () => {
    for (const [name, file] of [
      ['workers', 'worker.mjs'],
      ['workers-agents', 'agents-worker.mjs'],
      ['workers-mcp-agent', 'mcp-agent-worker.mjs'],
    ] as const) {
      // Each Worker with the OpenTelemetry SDK it imports, as the docs show them in one piece.
      const lines = new Set(
        [file, 'telemetry.mjs']
          .flatMap((f) => readFileSync(join(FIXTURE, f), 'utf8').split('\n'))
          .map((l) => l.trim()),
      );
      const shown = documented(name);
      expect(shown.length, name).toBeGreaterThan(5);
      for (const line of shown) expect(lines.has(line), `${file} lacks: ${line}`).toBe(true);
    }
  });
});
