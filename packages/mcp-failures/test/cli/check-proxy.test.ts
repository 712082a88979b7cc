/**
 * `mcp-failures check proxy` end to end: the built executable (run `npm run build` first) around
 * this package's mcp-failure-proxy in its stdio and Streamable HTTP forms, and around a
 * deliberately broken relay that drops unknown _meta keys (packages/mcp-failures/test/fixtures/check/); then the
 * command in-process for usage errors.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_EXIT } from '../../src/cli/check-common.js';
import { runCheckProxy } from '../../src/cli/check-proxy-command.js';
import { binPath } from '../../../../scripts/workspace.mjs';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const bin = binPath('mcp-failures');
const proxy = binPath('mcp-failure-proxy');
const stripping = join(
  root,
  'packages',
  'mcp-failures',
  'test',
  'fixtures',
  'check',
  'stripping-proxy.mjs',
);
const vectors = join(root, 'packages', 'mcp-failures', 'conformance', 'intermediary-cases.json');
/** The proxy's own telemetry goes nowhere: only what it relays matters here. */
const quiet = {
  ...process.env,
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function mcpFailures(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: quiet, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const row = (rule: string, status: string) => new RegExp(`^${rule}\\s+${status}`, 'm');
const lastLine = (run: Run) => run.stdout.trimEnd().split('\n').at(-1);
const RULES = [
  'TF-PROXY-PRESERVE',
  'TF-PROXY-NO-REWRITE',
  'TF-PROXY-NO-RETRY',
  'TF-PROXY-OWN-FAILURE',
];

let dir: string;
beforeAll(() => {
  if (!existsSync(bin) || !existsSync(proxy))
    throw new Error('dist/ is missing: run npm run build');
  dir = mkdtempSync(join(tmpdir(), 'omcp-check-proxy-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcp-failures check proxy', () => {
  it('passes mcp-failure-proxy --stdio with a stdio upstream, every rule exercised, and writes the report', async () => {
    const report = join(dir, 'stdio.json');
    const run = await mcpFailures([
      'check',
      'proxy',
      '--report',
      report,
      '--',
      process.execPath,
      proxy,
      '--stdio',
      '--',
      '{upstream}',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(CHECK_EXIT.pass);
    for (const rule of RULES) expect(run.stdout).toMatch(row(rule, 'pass'));
    expect(lastLine(run)).toBe('PASS');
    const json = JSON.parse(readFileSync(report, 'utf8'));
    const cases = JSON.parse(readFileSync(vectors, 'utf8')).cases.filter(
      (c: { upstream: { answer: string } }) => c.upstream.answer === 'result',
    );
    expect(json.verdict).toBe('pass');
    expect(json.outcomes.length).toBeGreaterThan(cases.length);
    // Every vector case that a scripted upstream can play was played, one upstream call each.
    for (const c of cases)
      expect(json.outcomes.find((o: { case: string }) => o.case === c.id)).toMatchObject({
        upstreamCalls: 1,
      });
  });

  it('passes mcp-failure-proxy --listen (Streamable HTTP) in front of a Streamable HTTP upstream', async () => {
    const run = await mcpFailures([
      'check',
      'proxy',
      '--upstream',
      'http',
      '--downstream',
      'http',
      '--',
      process.execPath,
      proxy,
      '--listen',
      '127.0.0.1:{port}',
      '--upstream-url',
      '{upstream}',
    ]);
    expect(run.code).toBe(CHECK_EXIT.pass);
    expect(run.stdout).toMatch(/upstream over http, client over http/);
    for (const rule of RULES) expect(run.stdout).toMatch(row(rule, 'pass'));
    expect(lastLine(run)).toBe('PASS');
  });

  it('fails, naming TF-PROXY-PRESERVE, a relay that drops unknown _meta keys', async () => {
    const run = await mcpFailures([
      'check',
      'proxy',
      '--',
      process.execPath,
      stripping,
      '--',
      '{upstream}',
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(run.stdout).toMatch(row('TF-PROXY-PRESERVE', 'fail'));
    expect(run.stdout).toMatch(
      /^TF-PROXY-PRESERVE: preserve-valid-failure-unknown-keys: _meta changed: keys dropped: com\.example\/trace, zz\.example\/last$/m,
    );
    expect(run.stdout).toMatch(row('TF-PROXY-NO-RETRY', 'pass'));
    expect(lastLine(run)).toMatch(/^FAIL: TF-PROXY-PRESERVE/);
  });

  it('exits 2 when the intermediary cannot start, exits at once, or never listens', async () => {
    const missing = await mcpFailures(['check', 'proxy', '--', join(dir, 'no-such-proxy')]);
    expect(missing.code).toBe(CHECK_EXIT.error);
    expect(missing.stderr).toMatch(
      /^mcp-failures: cannot start '.*no-such-proxy': no such command\n$/,
    );

    const exits = await mcpFailures([
      'check',
      'proxy',
      '--',
      process.execPath,
      '-e',
      'console.error("bye"); process.exit(3)',
    ]);
    expect(exits.code).toBe(CHECK_EXIT.error);
    expect(exits.stderr).toMatch(
      /^mcp-failures: the intermediary exited with code 3 before initialize \(intermediary stderr: bye\)\n$/,
    );

    const deaf = await mcpFailures([
      'check',
      'proxy',
      '--downstream',
      'http',
      '--timeout',
      '500',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => {}, 10000)',
    ]);
    expect(deaf.code).toBe(CHECK_EXIT.error);
    expect(deaf.stderr).toMatch(/^mcp-failures: no answer to initialize from the intermediary: /);
    expect(deaf.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('mcp-failures check proxy: usage (in-process)', () => {
  const fake = () => {
    const out = { stdout: '', stderr: '' };
    return {
      out,
      io: {
        self: [process.execPath, bin],
        vectors,
        writeFile: async () => undefined,
        stdout: (t: string) => void (out.stdout += t),
        stderr: (t: string) => void (out.stderr += t),
      },
    };
  };

  it.each([
    [['check', 'proxy'], /give the intermediary to run/],
    [
      ['check', 'proxy', '--upstream', 'sse', '--', 'x'],
      /--upstream must be stdio or http, got 'sse'/,
    ],
    [
      ['check', 'proxy', '--proxy-url', 'http://127.0.0.1:1/mcp', '--', 'x'],
      /--proxy-url goes with --downstream http/,
    ],
    [['check', 'proxy', '--timeout', 'x', '--', 'x'], /--timeout must be a whole number/],
  ])('%j exits 2 with one line', async (argv, message) => {
    const { out, io } = fake();
    expect(await runCheckProxy(argv, io)).toBe(CHECK_EXIT.error);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('--help names the placeholders and both forms of mcp-failure-proxy', async () => {
    const { out, io } = fake();
    expect(await runCheckProxy(['check', 'proxy', '--help'], io)).toBe(CHECK_EXIT.pass);
    expect(out.stdout).toMatch(/\{upstream\}/);
    expect(out.stdout).toMatch(/--listen 127\.0\.0\.1:\{port\}/);
  });
});
