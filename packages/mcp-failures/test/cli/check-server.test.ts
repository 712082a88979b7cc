/**
 * `mcp-failures check server` end to end: the built executable (run `npm run build` first)
 * against real stdio servers (this repository's example under the zero-code entry, the pinned
 * server-everything with and without it, deliberately broken plain JSON-RPC servers in
 * packages/mcp-failures/test/fixtures/check/) and the Streamable HTTP example; then the command in-process with a fake
 * session for what needs no server (usage, reports, connection errors).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECK_EXIT,
  runCheckServer,
  type CheckServerIo,
} from '../../src/cli/check-server-command.js';
import { CheckConnectionError, type CheckSession } from '../../src/cli/check-server-session.js';
import { copyPackage } from '../../../../scripts/workspace-copy.mjs';
import { binPath } from '../../../../scripts/workspace.mjs';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const bin = binPath('mcp-failures');
const fixtures = join(root, 'packages', 'mcp-failures', 'test', 'fixtures', 'check');
const everything = join(
  root,
  'test/fixtures/reference-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const REGISTER = ['--import', '@omcp/instrumentation-mcp/register'];
/** Telemetry of the servers under test goes nowhere: only the failure objects matter here. */
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

function mcpFailures(args: string[], script = bin): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      // A cap, not a measure: each run starts its server twice (the session, then discovery).
      { cwd: root, env: quiet, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** One line on stderr, or none, and never a stack trace. */
function expectClean(run: Run): void {
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(1);
}

const row = (rule: string, status: string) => new RegExp(`^${rule}\\s+${status}`, 'm');

let dir: string;
beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build`);
  if (!existsSync(everything))
    throw new Error(`${everything} is missing: run node scripts/install-fixtures.mjs`);
  dir = mkdtempSync(join(tmpdir(), 'omcp-check-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcp-failures check server (stdio)', { timeout: 90_000 }, () => {
  it('passes the example server instrumented with the zero-code entry, and writes the report', async () => {
    const report = join(dir, 'example.json');
    const run = await mcpFailures([
      'check',
      'server',
      '--scenario',
      join(fixtures, 'scenario.json'),
      '--report',
      report,
      '--',
      process.execPath,
      ...REGISTER,
      'examples/high-level-server/server.mjs',
      '--stdio',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(CHECK_EXIT.pass);
    for (const rule of [
      'TF-PLACEMENT',
      'TF-META-KEY',
      'TF-CLASS-ENUM',
      'TF-RETRYABLE-TYPE',
      'TF-CORRELATION-UNIQUE',
      'TF-CORRELATION-OPAQUE',
    ])
      expect(run.stdout).toMatch(row(rule, 'pass'));
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('PASS');
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json).toMatchObject({
      verdict: 'pass',
      calls: 5,
      failureObjects: 5,
      extensionImplemented: true,
    });
    expect(json.tools).toContain('search_flights');
    expect(json.unlisted).toEqual(['no_such_tool']);
    expect(json.outcomes).toHaveLength(5);
  });

  it('fails, naming TF-PLACEMENT, a server that puts the failure in a JSON-RPC error', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--call',
      'delete_repository',
      '--',
      process.execPath,
      join(fixtures, 'failure-in-rpc-error.mjs'),
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(run.stdout).toMatch(row('TF-PLACEMENT', 'fail'));
    expect(run.stdout).toMatch(
      /^TF-PLACEMENT: call 0 \(delete_repository\): JSON-RPC error -32603 carries a toolFailure in its data$/m,
    );
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('FAIL: TF-PLACEMENT');
    expectClean(run);
  });

  it('fails, naming TF-RETRYABLE-TYPE, a server whose retryable is not a boolean', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--call',
      'search_flights',
      '--call',
      'search_flights',
      '--',
      process.execPath,
      join(fixtures, 'bad-retryable.mjs'),
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(run.stdout).toMatch(row('TF-RETRYABLE-TYPE', 'fail'));
    expect(run.stdout).toMatch(row('TF-CORRELATION-UNIQUE', 'pass'));
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('FAIL: TF-RETRYABLE-TYPE');
    expectClean(run);
  });

  const negotiation = join(root, 'test', 'fixtures', 'negotiation', 'stdio-server.mjs');
  const declarationLine = (run: Run): string | undefined =>
    run.stdout.split('\n').find((l) => l.startsWith('extension: '));

  const everythingCalls = [
    '--call',
    'echo={"message":42}',
    '--call',
    'get-sum={"a":"one","b":2}',
    '--call',
    'no_such_tool',
  ];

  it('server-everything without instrumentation: the extension is not implemented, exit 1', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      ...everythingCalls,
      '--',
      process.execPath,
      everything,
      'stdio',
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(run.stdout).toContain(
      'the extension is not implemented: 3 error results carried no failure object',
    );
    expect(run.stdout).toMatch(row('TF-META-KEY', 'fail'));
    expect(run.stdout).toMatch(row('TF-CLASS-ENUM', 'not exercised'));
    expectClean(run);
  });

  it('server-everything with the zero-code entry passes', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      ...everythingCalls,
      '--',
      process.execPath,
      ...REGISTER,
      everything,
      'stdio',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(CHECK_EXIT.pass);
    expect(run.stdout).toMatch(row('TF-META-KEY', 'pass \\(3 checked\\)'));
    expect(run.stdout).toMatch(row('TF-CORRELATION-UNIQUE', 'pass'));
    // A 2025-11-25 server: its capabilities have no extensions, and it offers no 2026-07-28.
    expect(declarationLine(run)).toBe('extension: not declared (looked at initialize)');
    expect(run.stdout).toMatch(/^ {2}2026-07-28 not offered: /m);
  });

  it('a 2026-07-28 server under the zero-code entry: declared (in server/discover), PASS', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--call',
      'fail',
      '--',
      process.execPath,
      ...REGISTER,
      negotiation,
    ]);
    expect(run.code).toBe(CHECK_EXIT.pass);
    expect(declarationLine(run)).toBe(
      'extension: declared (looked at initialize, server/discover (2026-07-28))',
    );
  });

  it('the same server uninstrumented: not declared (and not implemented)', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--call',
      'fail',
      '--',
      process.execPath,
      negotiation,
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(declarationLine(run)).toBe(
      'extension: not declared (looked at initialize, server/discover (2026-07-28))',
    );
  });

  it('a server that declares the extension but sends a bare error result: declared but not implemented', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--call',
      'fail',
      '--',
      process.execPath,
      negotiation,
      '--declare',
    ]);
    expect(run.code).toBe(CHECK_EXIT.fail);
    expect(declarationLine(run)).toBe(
      'extension: declared but not implemented (looked at initialize, server/discover (2026-07-28))',
    );
    expect(run.stdout).toMatch(row('TF-META-KEY', 'fail'));
    expectClean(run);
  });

  it('a server command that does not start is a connection error: exit 2, one line', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--call',
      'x',
      '--',
      join(dir, 'no-such-program'),
    ]);
    expect(run.code).toBe(CHECK_EXIT.error);
    expect(run.stderr).toMatch(/^mcp-failures: cannot connect to '.*no-such-program': /);
    expectClean(run);
  });

  it('without the MCP SDK installed: exit 2, one line saying so', async () => {
    // The package copied into a tree where every package this repository installed resolves
    // (the root's own dependencies and the OpenTelemetry API among them) but the MCP SDKs.
    const world = join(dir, 'no-sdk');
    mkdirSync(join(world, 'node_modules'), { recursive: true });
    for (const entry of readdirSync(join(root, 'node_modules')))
      if (!['@modelcontextprotocol', '@omcp', '.bin', '.package-lock.json'].includes(entry))
        symlinkSync(join(root, 'node_modules', entry), join(world, 'node_modules', entry));
    const copy = copyPackage(join(world, 'app'), join(root, 'packages', 'mcp-failures'));
    const run = await mcpFailures(
      ['check', 'server', '--call', 'x', '--', process.execPath, everything, 'stdio'],
      // The executable an install of the kit links.
      join(
        copy,
        (
          JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as {
            bin: Record<string, string>;
          }
        ).bin['mcp-failures']!,
      ),
    );
    expect(run.code).toBe(CHECK_EXIT.error);
    expect(run.stderr).toMatch(
      /^mcp-failures: cannot load the MCP SDK 1\.x \(@modelcontextprotocol\/sdk, a peer dependency\): /,
    );
    expectClean(run);
  });

  it('the top-level help points at check server', async () => {
    const run = await mcpFailures(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: mcp-failures <command>/);
    expect(run.stdout).toContain('  check server ');
    expect(run.stdout).toContain('mcp-failures check server --help');
  });

  it('a usage mistake: exit 2, one line', async () => {
    const run = await mcpFailures(['check', 'server', '--', process.execPath, everything, 'stdio']);
    expect(run.code).toBe(CHECK_EXIT.error);
    expect(run.stderr).toBe(
      'mcp-failures: give the calls to make: --scenario FILE or --call TOOL[=JSON] (mcp-failures check server --help for usage)\n',
    );
  });
});

describe('mcp-failures check server --url (Streamable HTTP)', () => {
  let server: ChildProcess;
  let url: string;
  beforeAll(async () => {
    server = spawn(process.execPath, [...REGISTER, 'examples/streamable-http/server.mjs'], {
      cwd: root,
      env: { ...quiet, PORT: '0' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /listening (\S+)/.exec(out);
        if (m?.[1] !== undefined) resolve(m[1]);
      });
      server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
  });
  afterAll(() => {
    server?.kill('SIGTERM');
  });

  it('passes the Streamable HTTP example under the zero-code entry', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--url',
      url,
      '--call',
      'read_calendar',
      '--call',
      'book_flight',
      '--call',
      'test_error_handling',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(CHECK_EXIT.pass);
    expect(run.stdout).toMatch(row('TF-CORRELATION-UNIQUE', 'pass \\(3 checked\\)'));
  });

  it('a URL nobody listens on is a connection error: exit 2, one line', async () => {
    const run = await mcpFailures([
      'check',
      'server',
      '--url',
      'http://127.0.0.1:9/mcp',
      '--call',
      'x',
    ]);
    expect(run.code).toBe(CHECK_EXIT.error);
    expect(run.stderr).toMatch(/^mcp-failures: cannot connect to http:\/\/127\.0\.0\.1:9\/mcp: /);
    expectClean(run);
  });
});

describe('runCheckServer (in-process)', () => {
  function io(session: Partial<CheckSession> | Error, files: Record<string, string> = {}) {
    const out = {
      stdout: '',
      stderr: '',
      written: {} as Record<string, string>,
      targets: [] as unknown[],
    };
    const value: CheckServerIo = {
      readFile: async (path) => {
        const text = files[path];
        if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
        return text;
      },
      writeFile: async (path, text) => {
        out.written[path] = text;
      },
      connect: async (target) => {
        out.targets.push(target);
        if (session instanceof Error) throw session;
        return {
          listTools: async () => ['t'],
          callTool: async () => ({ kind: 'result', result: { content: [] } }),
          close: async () => undefined,
          ...session,
        };
      },
      stdout: (text) => (out.stdout += text),
      stderr: (text) => (out.stderr += text),
    };
    return { io: value, out };
  }

  it.each([
    [['check', 'server', '--call', 't'], 'give the server: -- COMMAND [ARGS...] or --url URL'],
    [
      ['check', 'clients', '--call', 't', '--', 'x'],
      "unknown check 'clients': expected server, client or proxy",
    ],
    [['check'], 'missing what to check: server, client or proxy'],
    [
      ['check', 'server', '--url', 'ftp://x', '--call', 't'],
      "--url must be an http(s) URL, got 'ftp://x'",
    ],
    [
      ['check', 'server', '--url', 'http://x', '--call', 't', '--', 'x'],
      'give either --url or a command after --, not both',
    ],
    [['check', 'server', '--call', 't={', '--', 'x'], '--call t: the arguments are not JSON'],
    [
      ['check', 'server', '--call', 't', '--timeout', '0', '--', 'x'],
      "--timeout must be a whole number of milliseconds from 1 to 600000, got '0'",
    ],
    [
      ['check', 'server', 'extra', '--call', 't', '--', 'x'],
      "unexpected argument 'extra' (the server command goes after --)",
    ],
  ])('%j is a usage error', async (argv, message) => {
    const { io: value, out } = io({});
    expect(await runCheckServer(argv, value)).toBe(CHECK_EXIT.error);
    expect(out.stderr).toBe(
      `mcp-failures: ${message} (mcp-failures check server --help for usage)\n`,
    );
    expect(out.targets).toEqual([]);
  });

  it('--help prints the usage', async () => {
    const { io: value, out } = io({});
    expect(await runCheckServer(['check', 'server', '--help'], value)).toBe(CHECK_EXIT.pass);
    expect(out.stdout).toMatch(/^Usage: mcp-failures check server/);
  });

  it('options after -- belong to the server command', async () => {
    const { io: value, out } = io({});
    await runCheckServer(
      ['check', 'server', '--call', 't', '--', 'srv', '--url', 'x', '-h'],
      value,
    );
    expect(out.targets).toEqual([{ kind: 'stdio', command: 'srv', args: ['--url', 'x', '-h'] }]);
  });

  it('a missing or bad scenario file is one line, exit 2', async () => {
    const missing = io({});
    expect(
      await runCheckServer(['check', 'server', '--scenario', 'a.json', '--', 'x'], missing.io),
    ).toBe(2);
    expect(missing.out.stderr).toBe('mcp-failures: cannot read a.json: no such file\n');
    const bad = io({}, { 'a.json': '{"calls":{}}' });
    expect(
      await runCheckServer(['check', 'server', '--scenario', 'a.json', '--', 'x'], bad.io),
    ).toBe(2);
    expect(bad.out.stderr).toMatch(/^mcp-failures: a\.json: expected/);
  });

  it('a connection error, or the connection lost mid-way, is one line, exit 2', async () => {
    const refused = io(new CheckConnectionError("cannot connect to 'x': spawn x ENOENT"));
    expect(await runCheckServer(['check', 'server', '--call', 't', '--', 'x'], refused.io)).toBe(2);
    expect(refused.out.stderr).toBe("mcp-failures: cannot connect to 'x': spawn x ENOENT\n");
    let closed = 0;
    const lost = io({
      callTool: async () => {
        throw new CheckConnectionError("the connection to 'x' was lost: Connection closed");
      },
      close: async () => {
        closed += 1;
      },
    });
    expect(await runCheckServer(['check', 'server', '--call', 't', '--', 'x'], lost.io)).toBe(2);
    expect(lost.out.stderr).toBe(
      "mcp-failures: the connection to 'x' was lost: Connection closed\n",
    );
    expect(closed).toBe(1);
  });

  it('a report that cannot be written is exit 2 after the table', async () => {
    const { io: value, out } = io({});
    value.writeFile = async () => {
      throw new Error('EACCES: permission denied');
    };
    expect(
      await runCheckServer(
        ['check', 'server', '--call', 't', '--report', 'r.json', '--', 'x'],
        value,
      ),
    ).toBe(2);
    expect(out.stdout).toContain('PASS');
    expect(out.stderr).toBe(
      'mcp-failures: cannot write the report r.json: EACCES: permission denied\n',
    );
  });
});
