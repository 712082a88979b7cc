import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an example as the README shows it; killed after 20 s so the test never hangs. */
function runExample(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, OTEL_SDK_DISABLED: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const ESM = ['--import', './examples/telemetry.mjs'];
const CJS = ['--require', './examples/telemetry.cjs'];
const TRACE = '[0-9a-f]{32}';

const examples: Array<{ name: string; args: string[]; output: Array<string | RegExp> }> = [
  {
    name: 'high-level-server',
    args: [...ESM, 'examples/high-level-server/server.mjs'],
    output: [
      new RegExp(`read_calendar: governance/auth_required retryable=false correlationId=${TRACE}`),
      new RegExp(`export_itinerary_pdf: capability/capability_unsupported .*=${TRACE}`),
      new RegExp(`search_flights: reliability/retryable_transient_error retryable=true`),
      'lookup_booking: reliability/retryable_transient_error',
      'OK high-level-server',
    ],
  },
  {
    name: 'low-level-server',
    args: [...ESM, 'examples/low-level-server/server.mjs'],
    output: [
      'delete_repository: governance/policy_blocked',
      'read_secret: governance/permission_denied',
      'get_issue: capability/invalid_input',
      'get_issue: capability/resource_not_found',
      'OK low-level-server',
    ],
  },
  {
    name: 'retry-client',
    args: [...ESM, 'examples/retry-client/client.mjs'],
    output: [
      'search_flights: continue after 2 attempt(s) (success)',
      'book_flight: stop after 1 attempt(s) (failure) - gave up (not_idempotent)',
      'read_calendar: ask_user after 1 attempt(s)',
      'export_itinerary_pdf: change_plan after 1 attempt(s)',
      '1 logical call, 2 attempts, 1 retry event; the server saw attempt 2',
      'OK retry-client',
    ],
  },
  {
    name: 'streamable-http',
    args: [...ESM, 'examples/streamable-http/client.mjs'],
    output: [
      /connected to http:\/\/127\.0\.0\.1:\d+\/mcp/,
      'test_error_handling: reliability/internal_error',
      'OK streamable-http',
    ],
  },
  {
    name: 'proxy',
    args: [...ESM, 'examples/proxy/proxy.mjs'],
    output: [
      new RegExp(
        `read_calendar\\s+governance/auth_required relayed unchanged, correlationId ${TRACE}`,
      ),
      new RegExp(
        `export_itinerary_pdf\\s+capability/capability_unsupported relayed unchanged, correlationId ${TRACE}`,
      ),
      'OK proxy',
    ],
  },
  {
    name: 'commonjs',
    args: [...CJS, 'examples/commonjs/app.cjs'],
    output: [
      new RegExp(`approve_expense: governance/user_action_required correlationId=${TRACE}`),
      'OK commonjs',
    ],
  },
];

describe('examples check their own output', () => {
  for (const example of examples) {
    it(`${example.name}: node ${example.args.join(' ')}`, async () => {
      const r = await runExample(example.args);
      expect(r.stderr).not.toContain('FAIL:');
      expect(r.code, r.stderr).toBe(0);
      for (const expected of example.output) {
        if (typeof expected === 'string') expect(r.stdout).toContain(expected);
        else expect(r.stdout).toMatch(expected);
      }
    });
  }

  it('an example run without its telemetry setup fails with a one-line reason', async () => {
    const r = await runExample(['examples/high-level-server/server.mjs']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'FAIL: telemetry not loaded: run with node --import ./examples/telemetry.mjs <example>',
    ]);
  });
});
