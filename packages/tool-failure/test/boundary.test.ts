/**
 * The data model (packages/tool-failure) is the part a server author or another SDK takes alone,
 * so it has no runtime dependency on OpenTelemetry: no file of it imports `@opentelemetry/*` or
 * anything outside its own `src/`, and its built entry loads and works in a folder where no
 * package at all can be resolved. With OpenTelemetry present, a failure's `correlationId` is still the active
 * span's trace ID, read through the API's global registry.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT_CONTEXT, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correlationIdFor } from '../src/correlation.js';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');
const specifiers = (text: string) =>
  [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1] ?? '');

describe('the data model stands alone', () => {
  it('imports no package, and nothing outside its own src/', () => {
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const f of files)
      for (const s of specifiers(readFileSync(join(src, f), 'utf8'))) {
        const inside = s.startsWith('.') && resolve(dirname(join(src, f)), s).startsWith(src);
        expect(inside || s.startsWith('node:'), `${f} imports ${s}`).toBe(true);
      }
  });

  it('loads and builds a failure where no package can be resolved (the built entry alone)', () => {
    const esm = join(root, 'dist/esm');
    if (!existsSync(join(esm, 'index.js')))
      throw new Error(
        'packages/tool-failure/dist/ is missing: this test loads the built entry (npm run build)',
      );
    // The entry and every module it reaches, copied to a folder with no node_modules above it.
    const dir = mkdtempSync(join(tmpdir(), 'omcp-data-model-'));
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const s of specifiers(readFileSync(file, 'utf8'))) {
        expect(s.startsWith('.') || s.startsWith('node:'), `${file} imports ${s}`).toBe(true);
        if (s.startsWith('.')) visit(resolve(dirname(file), s));
      }
    };
    visit(join(esm, 'index.js'));
    for (const file of seen) cpSync(file, join(dir, relative(esm, file)));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const script = `
      import { toolFailure, readToolFailure, TOOL_FAILURE_META_KEY } from './index.js';
      const r = toolFailure({ class: 'reliability', code: 'upstream_unavailable', retryable: true,
        agentGuidance: 'Try again shortly.', message: 'down' });
      const f = r._meta[TOOL_FAILURE_META_KEY];
      console.log(JSON.stringify({ id: f.correlationId, status: readToolFailure(r).status }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as { id: string; status: string };
    expect(out.id).toMatch(/^[0-9a-f]{32}$/);
    expect(out.status).toBe('valid');
  });
});

describe('the package names in tests', () => {
  it("are the sources (tsconfig.json's paths, as vitest.config.ts reads them), one module each", async () => {
    expect(await import('@omcp/tool-failure')).toBe(await import('../src/index.js'));
    expect(await import('@omcp/tool-failure/wire')).toBe(await import('../src/wire/index.js'));
  });
});

describe('correlationIdFor', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    manager.enable();
    context.setGlobalContextManager(manager);
  });
  afterAll(() => {
    context.disable();
  });
  const tracer = provider.getTracer('t');

  it("is the active span's trace ID, read without importing the API", () => {
    const span = tracer.startSpan('s');
    const id = context.with(trace.setSpan(context.active(), span), () => correlationIdFor());
    expect(id).toBe(span.spanContext().traceId);
    span.end();
  });

  it("is the trace ID of a context passed in, and random where the span's context is invalid", () => {
    const span = tracer.startSpan('s');
    expect(correlationIdFor(trace.setSpan(ROOT_CONTEXT, span))).toBe(span.spanContext().traceId);
    const invalid = trace.wrapSpanContext({
      traceId: '0'.repeat(32),
      spanId: '0'.repeat(16),
      traceFlags: 0,
    });
    const a = correlationIdFor(trace.setSpan(ROOT_CONTEXT, invalid));
    const b = correlationIdFor(ROOT_CONTEXT);
    for (const id of [a, b]) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    span.end();
  });
});
