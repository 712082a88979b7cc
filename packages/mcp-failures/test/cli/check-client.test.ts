/**
 * `mcp-failures check client` end to end: the built executable (run `npm run build` first)
 * against this package's retry client (withToolRetry over the SDK Client, stdio and Streamable
 * HTTP), a client written without the SDK (plain JSON-RPC over stdio) and its deliberately broken
 * variants (packages/mcp-failures/test/fixtures/check/); then the command in-process for usage errors.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheckClient } from '../../src/cli/check-client-command.js';
import { CHECK_EXIT } from '../../src/cli/check-common.js';
import { runServeScripted } from '../../src/cli/check-client-serve.js';
import { binPath } from '../../../../scripts/workspace.mjs';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const bin = binPath('mcp-failures');
const fixtures = join(root, 'packages', 'mcp-failures', 'test', 'fixtures', 'check');
const plain = join(fixtures, 'plain-client.mjs');
const retrying = join(fixtures, 'retry-client.mjs');

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
      { cwd: root, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const row = (rule: string, status: string) => new RegExp(`^${rule}\\s+${status}`, 'm');
const lastLine = (run: Run) => run.stdout.trimEnd().split('\n').at(-1);

let dir: string;
beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build`);
  dir = mkdtempSync(join(tmpdir(), 'omcp-check-client-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcp-failures check client', () => {
  it('passes the plain JSON-RPC client (no SDK) over stdio, every rule exercised, and writes the report', async () => {
    const report = join(dir, 'plain.json');
    const run = await mcpFailures([
      'check',
      'client',
      '--report',
      report,
      '--',
      process.execPath,
      plain,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(CHECK_EXIT.pass);
    for (const rule of [
      'TF-CLIENT-NO-RETRY-CAPABILITY',
      'TF-CLIENT-NO-RETRY-GOVERNANCE',
      'TF-CLIENT-RETRY-REQUIRES-RETRYABLE',
      'TF-CLIENT-RETRY-REQUIRES-IDEMPOTENT',
      'TF-CLIENT-NOT-BEFORE',
      'TF-CLIENT-DISPATCH-ON-CLASS',
      'TF-CLIENT-GUIDANCE-AS-DATA',
      'TF-CLIENT-MALFORMED-NOT-RETRIED',
      'TF-CLIENT-PRESERVE-FAILURE',
      'TF-CLIENT-UNAWARE-UNCHANGED',
    ])
      expect(run.stdout).toMatch(row(rule, 'pass'));
    expect(run.stdout).toMatch(/^fetch_quote\s+2\s+\+\d+/m);
    expect(lastLine(run)).toBe('PASS');
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json).toMatchObject({
      verdict: 'pass',
      transport: 'stdio',
      notCalled: [],
      exit: { code: 0 },
    });
    const quote = json.received.filter((c: { tool: string }) => c.tool === 'fetch_quote');
    expect(quote).toHaveLength(2);
    // The retry came no earlier than the retryNotBefore the first answer gave.
    expect(quote[1].receivedAt).toBeGreaterThanOrEqual(
      quote[0].result._meta['io.modelcontextprotocol/toolFailure'].retryNotBefore - 2,
    );
    expect(json.printed).toHaveLength(json.tools.length);
  });

  it('passes this package’s retry client (withToolRetry over the SDK Client) over stdio', async () => {
    const run = await mcpFailures(['check', 'client', '--', process.execPath, retrying]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(CHECK_EXIT.pass);
    expect(run.stdout).toMatch(row('TF-CLIENT-NOT-BEFORE', 'pass'));
    expect(run.stdout).toMatch(/^fetch_quote\s+2\s/m);
    expect(lastLine(run)).toBe('PASS');
  });

  it('passes the retry client over Streamable HTTP, the URL in the environment and in {url}', async () => {
    const run = await mcpFailures([
      'check',
      'client',
      '--transport',
      'http',
      '--',
      process.execPath,
      '--input-type=module',
      '-e',
      // The client gets the URL as an argument and must find it equal to the variable.
      `if (process.argv[1] !== process.env.MCP_CHECK_SERVER_URL || !/^http:\\/\\/127\\.0\\.0\\.1:\\d+\\/mcp$/.test(process.argv[1])) process.exit(9); await import(${JSON.stringify(retrying)});`,
      '{url}',
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/over http/);
    expect(run.stdout).toMatch(/exited with code 0/);
    expect(run.code).toBe(CHECK_EXIT.pass);
  });

  it('fails, naming TF-CLIENT-NO-RETRY-GOVERNANCE, a client that retries governance failures', async () => {
    const run = await mcpFailures([
      'check',
      'client',
      '--',
      process.execPath,
      plain,
      '--retry-governance',
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(run.stdout).toMatch(row('TF-CLIENT-NO-RETRY-GOVERNANCE', 'fail'));
    expect(run.stdout).toMatch(
      /^TF-CLIENT-NO-RETRY-GOVERNANCE: read_calendar: retried a failure the rule forbids/m,
    );
    expect(run.stdout).toMatch(row('TF-CLIENT-NO-RETRY-CAPABILITY', 'pass'));
    expect(lastLine(run)).toMatch(/^FAIL: .*TF-CLIENT-NO-RETRY-GOVERNANCE/);
  });

  it('fails, naming TF-CLIENT-NOT-BEFORE, a client that retries before retryNotBefore', async () => {
    const run = await mcpFailures([
      'check',
      'client',
      '--',
      process.execPath,
      plain,
      '--ignore-not-before',
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(run.stdout).toMatch(
      /^TF-CLIENT-NOT-BEFORE: fetch_quote: attempt 2 arrived \d+ ms after attempt 1, \d+ ms before retryNotBefore$/m,
    );
    expect(lastLine(run)).toBe('FAIL: TF-CLIENT-NOT-BEFORE');
  });

  it('fails, naming TF-CLIENT-PRESERVE-FAILURE, a client that hands on the first attempt’s failure', async () => {
    const run = await mcpFailures([
      'check',
      'client',
      '--',
      process.execPath,
      plain,
      '--return-first',
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(lastLine(run)).toBe('FAIL: TF-CLIENT-PRESERVE-FAILURE');
  });

  it('fails a client that calls no tool, and exits 2 for a client that cannot start or does not finish', async () => {
    const idle = await mcpFailures(['check', 'client', '--', process.execPath, '-e', '']);
    expect(idle.code).toBe(CHECK_EXIT.fail);
    expect(lastLine(idle)).toBe('FAIL: the client called no tool');

    const missing = await mcpFailures(['check', 'client', '--', join(dir, 'no-such-client')]);
    expect(missing.code).toBe(CHECK_EXIT.error);
    expect(missing.stderr).toMatch(
      /^mcp-failures: cannot start '.*no-such-client': no such command\n$/,
    );

    const slow = await mcpFailures([
      'check',
      'client',
      '--timeout',
      '300',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => {}, 10000)',
    ]);
    expect(slow.code).toBe(CHECK_EXIT.error);
    expect(slow.stderr).toBe('mcp-failures: the client did not finish within 300 ms\n');
  });
});

describe('mcp-failures check client: usage (in-process)', () => {
  const io = () => {
    const out = { stdout: '', stderr: '' };
    return {
      out,
      io: {
        self: [process.execPath, bin],
        writeFile: async () => undefined,
        stdout: (t: string) => void (out.stdout += t),
        stderr: (t: string) => void (out.stderr += t),
      },
    };
  };

  it.each([
    [['check', 'client'], /give the client to run/],
    [
      ['check', 'client', '--transport', 'ws', '--', 'x'],
      /--transport must be stdio or http, got 'ws'/,
    ],
    [['check', 'client', '--timeout', '0', '--', 'x'], /--timeout must be a whole number/],
    [['check', 'client', '--bogus', '--', 'x'], /Unknown option '--bogus'/],
    [['check', 'client', 'extra', '--', 'x'], /unexpected argument 'extra'/],
  ])('%j exits 2 with one line', async (argv, message) => {
    const { out, io: fake } = io();
    expect(await runCheckClient(argv, fake)).toBe(CHECK_EXIT.error);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('--help shows the contract', async () => {
    const { out, io: fake } = io();
    expect(await runCheckClient(['check', 'client', '--help'], fake)).toBe(CHECK_EXIT.pass);
    expect(out.stdout).toMatch(/MCP_CHECK_SERVER_COMMAND/);
    expect(out.stdout).toMatch(/MCP_CHECK_SERVER_URL/);
    expect(out.stdout).toMatch(/\{"tool": NAME, "result": RESULT\}/);
  });
});

describe('mcp-failures check serve-scripted (in-process)', () => {
  it.each([
    [
      ['check', 'serve-scripted', '--script', 'nope'],
      /--script must be client or proxy, got 'nope'/,
    ],
    [['check', 'serve-scripted', '--script', 'proxy'], /--script proxy needs --vectors FILE/],
    [['check', 'serve-scripted', '--bogus'], /Unknown option '--bogus'/],
  ])('%j exits 2 with one line', async (argv, message) => {
    let stderr = '';
    const code = await runServeScripted(argv, {
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
