/**
 * The README's NodeSDK setup ("1. Register at startup"), taken from the README
 * as it stands, loaded with `--import` into a short-lived ES module app: the spans must reach an
 * OTLP/HTTP receiver before the process ends, whether it ends by itself or by SIGTERM. The batch
 * processor's own timer is set beyond the test, so only the snippet's shutdown can export them.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../observability/helpers.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { failingCallModule } from '../packaging/apps.js';

const HEADING = '## 1. Register at startup';

/** The first ```js block under the heading, as the README shows it. */
function snippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`\n${HEADING}\n`));
  expect(section.length, HEADING).toBeLessThan(readme.length);
  const code = /\n```js\n([\s\S]*?)\n```\n/.exec(section)?.[1];
  expect(code).toBeDefined();
  expect(code).toMatch(/^\/\/ telemetry\.mjs/);
  return `${code!}\n`;
}

/** An app that calls a failing tool in memory, prints the correlationId, and then `rest`. */
const app = (rest: string): string => failingCallModule('lookup', 'upstream down', rest);

/** A project holding the snippet and the app, with this package and its peers installed (linked). */
function project(): string {
  const dir = tempDir('omcp-readme-sdk');
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@omcp'), { recursive: true });
  symlinkSync(ROOT, join(modules, '@omcp', 'instrumentation-mcp'), 'dir');
  for (const scope of ['@opentelemetry', '@modelcontextprotocol'])
    symlinkSync(join(ROOT, 'node_modules', scope), join(modules, scope), 'dir');
  writeFileSync(
    join(dir, 'package.json'),
    '{ "name": "app", "private": true, "type": "module" }\n',
  );
  writeFileSync(join(dir, 'telemetry.mjs'), snippet());
  writeFileSync(join(dir, 'ends.mjs'), app(''));
  writeFileSync(
    join(dir, 'serves.mjs'),
    app("setInterval(() => {}, 1000); console.log('serving');"),
  );
  return dir;
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node --import ./telemetry.mjs <script>`; `onOutput` may act on what it prints. */
function run(
  dir: string,
  script: string,
  env: NodeJS.ProcessEnv,
  onOutput: (stdout: string, kill: (s: NodeJS.Signals) => void) => void = () => {},
): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', './telemetry.mjs', script], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onOutput(stdout, (s) => child.kill(s));
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe("the README's NodeSDK snippet", () => {
  let receiver: OtlpReceiver;
  let env: NodeJS.ProcessEnv;
  let dir: string;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    dir = project();
    env = {
      OTEL_SERVICE_NAME: 'readme-snippet',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      OTEL_METRIC_EXPORT_INTERVAL: '600000',
    };
  });
  afterEach(() => receiver.close());

  /** The server span of the call whose correlationId the app printed, as received. */
  const serverSpanOf = (stdout: string) => {
    const id = /correlationId=([0-9a-f]{32})/.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    return receiver.spans.find(
      (s) => s.name === 'tools/call lookup' && s.kind === 2 && s.traceId === id,
    );
  };

  it('exports the spans of a process that ends by itself', async () => {
    const ended = await run(dir, 'ends.mjs', env);
    expect(ended, ended.stderr).toMatchObject({ code: 0, signal: null });
    // Everything was sent before the process ended: nothing arrives later.
    const span = serverSpanOf(ended.stdout);
    expect(span, receiver.spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(span!.serviceName).toBe('readme-snippet');
    expect(receiver.spans.some((s) => s.name === 'tools/call lookup' && s.kind === 3)).toBe(true);
  });

  it('exports the spans of a process stopped by SIGTERM, then exits 143 (128 + SIGTERM)', async () => {
    let sent = false;
    const ended = await run(dir, 'serves.mjs', env, (out, kill) => {
      if (!sent && out.includes('serving\n')) kill('SIGTERM');
      sent ||= out.includes('serving\n');
    });
    // The snippet flushes, then exits with the shell's status for a SIGTERM.
    expect(ended, ended.stderr).toMatchObject({ code: 143, signal: null });
    expect(serverSpanOf(ended.stdout)).toBeDefined();
  });
});
