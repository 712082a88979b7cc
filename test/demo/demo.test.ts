/**
 * The main job, as a reviewer runs it: `npm run demo` (here `node demo/index.mjs` on the build
 * that `npm test` made) must show every class, the retried call, the unretried non-idempotent
 * call, and correlationIds that match server spans; `mcp-failures lookup` must then find one of
 * the printed correlationIds in the local telemetry file.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: undefined } as NodeJS.ProcessEnv;

describe('npm run demo', () => {
  let stdout = '';

  it('prints the table, checks every correlationId against the server spans, and exits 0', async () => {
    ({ stdout } = await run(process.execPath, ['demo/index.mjs'], {
      cwd: root,
      env,
      timeout: 120_000,
    }));
    for (const cls of ['capability', 'reliability', 'governance'])
      expect(stdout).toMatch(new RegExp(`\\s${cls}\\s`));
    for (const code of [
      'retryable_transient_error',
      'auth_required',
      'permission_denied',
      'policy_blocked',
      'user_action_required',
      'capability_unsupported',
      'invalid_input',
      'resource_not_found',
      'internal_error',
    ]) {
      expect(stdout).toContain(code);
    }
    expect(stdout).toMatch(
      /weather_lookup\s+reliability\s+retryable_transient_error\s+3\s+success/,
    );
    expect(stdout).toMatch(/send_email\s+reliability\s+retryable_transient_error\s+1\s+failure/);
    expect(stdout).toMatch(
      /ok {4}every correlationId is the trace ID of its server span \((\d+)\/\1\)/,
    );
    expect(stdout).not.toContain('FAIL');
    expect(stdout).not.toContain('MISSING');
  });

  it('mcp-failures lookup finds a correlationId the demo printed, in the local file', async () => {
    const id = /npm run mcp-failures -- lookup ([0-9a-f]{32}) --file (\S+)/.exec(stdout);
    expect(id).not.toBeNull();
    const { stdout: chain } = await run(
      process.execPath,
      ['dist/esm/cli/mcp-failures.js', 'lookup', id![1]!, '--file', id![2]!],
      { cwd: root },
    );
    expect(chain).toContain(`trace ${id![1]}`);
    expect(chain).toContain('omcp-demo-server');
    expect(chain).toContain('omcp-demo-proxy');
  });

  it('load mode runs at a rate for a duration, shows progress, and checks correlationIds', async () => {
    const { stdout: out } = await run(
      process.execPath,
      [
        'demo/index.mjs',
        '--load',
        '--rate',
        '20',
        '--duration',
        '6',
        '--mix',
        'weather_lookup,calendar_events',
      ],
      { cwd: root, env, timeout: 120_000 },
    );
    expect(out).toMatch(/load: 5s \/ 6s, \d+ calls sent/);
    expect(out).toMatch(/load: \d+ logical calls, \d+ ended in a failure/);
    expect(out).toMatch(/ok {4}every correlationId is the trace ID of its server span/);
  });

  it('answers a bad option with one line and exit 2', async () => {
    await expect(
      run(process.execPath, ['demo/index.mjs', '--rate', '0'], { cwd: root, env }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: 'demo: --rate must be a positive number (got 0)\n',
    });
    await expect(
      run(process.execPath, ['demo/index.mjs', '--bogus'], { cwd: root, env }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^demo: Unknown option '--bogus'[^\n]*\n$/),
    });
  });
});
