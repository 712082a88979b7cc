import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcpFailures, type CliIo } from '../../packages/mcp-failures/src/cli/lookup-command.js';
import { startFakeJaeger, type FakeJaeger } from './fixtures/fake-jaeger.js';
import {
  CUSTOM_CORRELATION_ID,
  GUIDANCE,
  recordFailureTraces,
  type RecordedTraces,
} from './fixtures/failure-trace.js';
import { repoPath, run, tempDir } from './helpers.js';
import { binPath } from '../../scripts/workspace.mjs';

let recorded: RecordedTraces;
let jaeger: FakeJaeger;
let file = '';
let closedPort = 0;

/** Real file system and fetch, captured output. */
function io(): CliIo & { out: string; err: string } {
  const captured = {
    out: '',
    err: '',
    readFile: (path: string) => readFile(path, 'utf8'),
    fetch: (url: string) => fetch(url, { signal: AbortSignal.timeout(5_000) }),
    stdout: (text: string) => {
      captured.out += text;
    },
    stderr: (text: string) => {
      captured.err += text;
    },
    now: () => Date.now(),
  };
  return captured;
}

async function lookup(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const streams = io();
  const code = await runMcpFailures(argv, streams);
  return { code, out: streams.out, err: streams.err };
}

/** A one-line message on stderr, without a stack trace. */
function expectOneLine(err: string, pattern: RegExp): void {
  expect(err).toMatch(pattern);
  expect(err.trimEnd().split('\n')).toHaveLength(1);
  expect(err).not.toMatch(/\n\s+at |Error:/);
}

beforeAll(async () => {
  recorded = await recordFailureTraces();
  jaeger = await startFakeJaeger(recorded.bodies);
  file = join(tempDir('otlp-file'), 'traces.jsonl');
  writeFileSync(file, `${recorded.bodies.join('\n')}\n`);
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        resolve(typeof address === 'object' && address !== null ? address.port : 0),
      );
    });
  });
});

afterAll(async () => {
  await jaeger?.stop();
});

describe('mcp-failures lookup --jaeger-url', () => {
  it('finds the trace by ID through /api/v3/traces/{id} and prints the chain (exit 0)', async () => {
    const { code, out, err } = await lookup(
      'lookup',
      recorded.failingTraceId,
      '--jaeger-url',
      jaeger.url,
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(jaeger.requests).toContain(`/api/v3/traces/${recorded.failingTraceId}`);
    expect(out).toContain(`trace ${recorded.failingTraceId}`);
    expect(out).toContain('failure: reliability / upstream_unavailable');
    expect(out).toContain(`guidance: ${GUIDANCE}`);
    expect(out).toContain('proxy (server side)');
    expect(out).toContain('server: tools/call search_flights  [SERVER flights-server]');
    expect(out).toContain('exception.message=upstream returned 503');
  });

  it('exits 1 with one line when Jaeger answers 404', async () => {
    const { code, out, err } = await lookup(
      'lookup',
      'ffffffffffffffffffffffffffffffff',
      '--jaeger-url',
      jaeger.url,
    );
    expect(code).toBe(1);
    expect(out).toBe('');
    expectOneLine(
      err,
      /^mcp-failures: no trace found for correlationId f{32} in http:\/\/127\.0\.0\.1:\d+\n$/,
    );
  });

  it('searches by the correlation_id tag when the ID is not a trace ID and --service is given', async () => {
    const { code, out } = await lookup(
      'lookup',
      CUSTOM_CORRELATION_ID,
      '--jaeger-url',
      jaeger.url,
      '--service',
      'flights-server',
    );
    expect(code).toBe(0);
    expect(
      jaeger.requests.some((r) => r.startsWith('/api/traces?service=flights-server&tags=')),
    ).toBe(true);
    expect(out).toContain(`trace ${recorded.customTraceId}`);
    expect(out).toContain(`correlationId: ${CUSTOM_CORRELATION_ID}`);
  });

  it('exits 2 with one line when a non-trace-ID correlationId comes without --service', async () => {
    const { code, err } = await lookup('lookup', CUSTOM_CORRELATION_ID, '--jaeger-url', jaeger.url);
    expect(code).toBe(2);
    expectOneLine(err, /give --service/);
  });

  it('exits 2 with one line when Jaeger is unreachable', async () => {
    const { code, err } = await lookup(
      'lookup',
      recorded.failingTraceId,
      '--jaeger-url',
      `http://127.0.0.1:${closedPort}`,
    );
    expect(code).toBe(2);
    expectOneLine(
      err,
      /^mcp-failures: cannot reach Jaeger at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
    );
  });

  it('exits 2 with one line when Jaeger answers an error status', async () => {
    const { code, err } = await lookup(
      'lookup',
      recorded.failingTraceId,
      '--jaeger-url',
      `${jaeger.url}/no-such-prefix`,
    );
    expect(code).toBe(2);
    expectOneLine(err, /Jaeger answered HTTP 500/);
  });
});

describe('mcp-failures lookup --file', () => {
  it('finds the trace in OTLP JSON lines (exit 0), also with --json', async () => {
    const text = await lookup('lookup', recorded.failingTraceId, '--file', file);
    expect(text.code).toBe(0);
    expect(text.out).toContain('call: outcome retries_exhausted after 2 attempt(s)');
    const json = await lookup('lookup', recorded.failingTraceId, '--file', file, '--json');
    expect(json.code).toBe(0);
    const chains = JSON.parse(json.out) as Array<{ traceId: string; failure: { code: string } }>;
    expect(chains[0]?.traceId).toBe(recorded.failingTraceId);
    expect(chains[0]?.failure.code).toBe('upstream_unavailable');
  });

  it('finds a correlationId that is not a trace ID by attribute', async () => {
    const { code, out } = await lookup('lookup', CUSTOM_CORRELATION_ID, '--file', file);
    expect(code).toBe(0);
    expect(out).toContain(`trace ${recorded.customTraceId}`);
  });

  it('reads a single JSON document', async () => {
    const single = join(tempDir('otlp-single'), 'trace.json');
    const resourceSpans = recorded.bodies.flatMap(
      (b) => (JSON.parse(b) as { resourceSpans: unknown[] }).resourceSpans,
    );
    writeFileSync(single, JSON.stringify({ resourceSpans }, null, 2));
    const { code, out } = await lookup('lookup', recorded.failingTraceId, '--file', single);
    expect(code).toBe(0);
    expect(out).toContain('server: tools/call search_flights  [SERVER flights-server]');
  });

  it('exits 1 when the correlationId is not in the file', async () => {
    const { code, err } = await lookup(
      'lookup',
      '0123456789abcdef0123456789abcdef',
      '--file',
      file,
    );
    expect(code).toBe(1);
    expectOneLine(err, /no trace found for correlationId 0123456789abcdef0123456789abcdef in /);
  });

  it('reads absurdly nested attribute arrays as null instead of running out of stack', async () => {
    let value = '{"stringValue":"deep"}';
    for (let i = 0; i < 20_000; i++) value = `{"arrayValue":{"values":[${value}]}}`;
    const deep = join(tempDir('otlp-deep'), 'deep.jsonl');
    const line = JSON.parse(recorded.bodies[0]!) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ attributes: unknown[] }> }> }>;
    };
    const text = JSON.stringify(line).replace(
      '"attributes":[',
      `"attributes":[{"key":"deep","value":${value}},`,
    );
    expect(text).toContain('"key":"deep"');
    writeFileSync(deep, `${text}\n`);
    const { code, err } = await lookup('lookup', recorded.failingTraceId, '--file', deep);
    expect(err).not.toMatch(/call stack/i);
    expect(code).toBe(0);
  });

  it('exits 2 with one line for a missing file or a file that is not OTLP JSON', async () => {
    const missing = await lookup(
      'lookup',
      recorded.failingTraceId,
      '--file',
      '/nonexistent/traces.jsonl',
    );
    expect(missing.code).toBe(2);
    expectOneLine(missing.err, /cannot read \/nonexistent\/traces\.jsonl: no such file/);
    const bad = join(tempDir('otlp-bad'), 'bad.jsonl');
    writeFileSync(bad, `${recorded.bodies[0]}\nnot json\n`);
    const broken = await lookup('lookup', recorded.failingTraceId, '--file', bad);
    expect(broken.code).toBe(2);
    expectOneLine(broken.err, /bad\.jsonl: line 2 is not JSON/);
  });
});

describe('mcp-failures usage errors', () => {
  it.each([
    [[], /missing command/],
    [['find', 'x'], /unknown command 'find'/],
    [['lookup'], /missing <correlationId>/],
    [['lookup', 'abc'], /exactly one of --jaeger-url or --file/],
    [['lookup', 'abc', '--file', 'a', '--jaeger-url', 'http://x'], /exactly one of/],
    [['lookup', 'abc', '--jaeger-url', 'localhost:16686'], /must be an http\(s\) URL/],
    [['lookup', 'abc', '--jaeger-url', 'http://[bad'], /--jaeger-url must be an http\(s\) URL/],
    [['lookup', 'abc', '--jaeger-url', 'http://exa mple.com'], /--jaeger-url must be/],
    [['lookup', 'abc', '--jaeger-url', 'http://127.0.0.1:99999'], /--jaeger-url must be/],
    [['lookup', 'abc', '--file', 'a', '--lookback', '1e300'], /--lookback must be a number/],
    [['lookup', 'abc', '--file', 'a', '--bogus'], /Unknown option '--bogus'/],
    [['lookup', 'abc', 'extra', '--file', 'a'], /unexpected argument 'extra'/],
  ])('%j exits 2 with one line', async (argv, pattern) => {
    const { code, out, err } = await lookup(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expectOneLine(err, pattern);
    expect(err).toContain('(mcp-failures --help for usage)');
  });

  it('a body that stalls past the request timeout is "timed out", not "not JSON"', async () => {
    const streams = io();
    streams.fetch = async () => ({
      status: 200,
      json: () => Promise.reject(new DOMException('The operation timed out.', 'TimeoutError')),
    });
    const code = await runMcpFailures(
      ['lookup', recorded.failingTraceId, '--jaeger-url', 'http://127.0.0.1:1'],
      streams,
    );
    expect(code).toBe(2);
    expectOneLine(streams.err, /Jaeger at http:\/\/127\.0\.0\.1:1 timed out/);
  });

  it('does not repeat the credentials of a --jaeger-url', async () => {
    const { code, err } = await lookup('lookup', 'abc', '--jaeger-url', 'http://u:s3cret@[bad');
    expect(code).toBe(2);
    expect(err).not.toContain('s3cret');
  });

  it('prints help on --help (exit 0)', async () => {
    const { code, out } = await lookup('--help');
    expect(code).toBe(0);
    expect(out).toContain('Usage: mcp-failures lookup <correlationId>');
  });
});

describe('the mcp-failures executable', () => {
  // The kit's executable as `npm run build` made it (packages/mcp-failures).
  const bin = binPath('mcp-failures');

  it("starts with a shebang and is the kit's bin, and the root package has none", async () => {
    const source = await readFile(bin, 'utf8');
    expect(source.startsWith('#!/usr/bin/env node\n')).toBe(true);
    const kit = JSON.parse(
      await readFile(repoPath('packages/mcp-failures/package.json'), 'utf8'),
    ) as { bin: Record<string, string> };
    expect(kit.bin['mcp-failures']).toBe('./dist/esm/cli/mcp-failures.js');
    const root = JSON.parse(await readFile(repoPath('package.json'), 'utf8')) as {
      bin?: Record<string, string>;
    };
    expect(root.bin).toBeUndefined();
    const own = await run(process.execPath, [bin, '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('Usage: mcp-failures');
  });

  it('exits 0 / 1 / 2 as a process, with one line on stderr and no stack trace', async () => {
    const found = await run(process.execPath, [
      bin,
      'lookup',
      recorded.failingTraceId,
      '--jaeger-url',
      jaeger.url,
    ]);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('failure: reliability / upstream_unavailable');

    const missing = await run(process.execPath, [
      bin,
      'lookup',
      // A trace ID that differs from the recorded one in its first digit, whatever that digit is.
      recorded.failingTraceId.replace(/./, (c) => (c === 'f' ? '0' : 'f')),
      '--file',
      file,
    ]);
    expect(missing.code).toBe(1);
    expectOneLine(missing.stderr, /no trace found/);

    const usage = await run(process.execPath, [bin, 'lookup']);
    expect(usage.code).toBe(2);
    expectOneLine(usage.stderr, /missing <correlationId>/);

    const down = await run(process.execPath, [
      bin,
      'lookup',
      recorded.failingTraceId,
      '--jaeger-url',
      `http://127.0.0.1:${closedPort}`,
    ]);
    expect(down.code).toBe(2);
    expectOneLine(down.stderr, /cannot reach Jaeger/);
  });
});
