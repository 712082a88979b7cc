/**
 * The main job, as a reviewer runs it: `npm run demo` (here `node demo/index.mjs` on the build
 * that `npm test` made) must show every class, the retried call, the unretried non-idempotent
 * call, and correlationIds that match server spans; `mcp-failures lookup` must then find one of
 * the printed correlationIds in the local telemetry file. The demo writes to a directory of its
 * own here (OMCP_DEMO_DIR), so the file a user's earlier `npm run demo` told them to look up in
 * stays as it was.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath } from '../../scripts/workspace.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const COLUMNS = 120;

/** The user's own demo output, as `npm run demo` leaves it. */
const USER_FILES = ['telemetry.jsonl', 'results.json'].map((f) => join(root, '.omcp', 'demo', f));
/** Each file's content and modification time, or null where there is none. */
const snapshot = (): Array<{ content: string; mtimeMs: number } | null> =>
  USER_FILES.map((file) => {
    try {
      return { content: readFileSync(file, 'utf8'), mtimeMs: statSync(file).mtimeMs };
    } catch {
      return null;
    }
  });

/**
 * Lines of the demo's output (progress, table, checks, the lookup command, and stderr) longer
 * than a 120-column terminal shows, with their length.
 */
const tooWide = (...outputs: string[]): string[] =>
  outputs
    .flatMap((o) => o.split('\n'))
    .filter((l) => l.length > COLUMNS)
    .map((l) => `${l.length}: ${l}`);

describe('npm run demo', () => {
  let stdout = '';
  let env: NodeJS.ProcessEnv;
  let outDir: string;
  let before: ReturnType<typeof snapshot>;

  beforeAll(() => {
    before = snapshot();
    // Inside the package (as the demo's own folder is), so the printed path is as short.
    mkdirSync(join(root, '.omcp'), { recursive: true });
    outDir = mkdtempSync(join(root, '.omcp', 'test-'));
    env = {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OMCP_DEMO_DIR: outDir,
    } as NodeJS.ProcessEnv;
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('prints the table, checks every correlationId against the server spans, and exits 0', async () => {
    let stderr: string;
    ({ stdout, stderr } = await run(process.execPath, ['demo/index.mjs'], {
      cwd: root,
      env,
      timeout: 120_000,
    }));
    // What the demo's processes print on stderr (the zero-code entry's line among it) fits too.
    expect(tooWide(stdout, stderr)).toEqual([]);
    // Every row's correlationId and agentGuidance in full, under the row.
    expect(stdout.match(/^ +correlationId [0-9a-f]{32} {2}server span: match$/gm)).toHaveLength(10);
    expect(stdout).toContain(
      'agentGuidance Tell the user this export needs approval from the data protection officer.',
    );
    expect(stdout).not.toContain('…');
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
    expect(resolve(root, id![2]!)).toBe(join(outDir, 'telemetry.jsonl'));
    const { stdout: chain } = await run(
      process.execPath,
      [binPath('mcp-failures'), 'lookup', id![1]!, '--file', id![2]!],
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
    expect(tooWide(out)).toEqual([]);
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

  it("leaves the user's .omcp/demo files as they were", () => {
    expect(snapshot()).toEqual(before);
  });
});
