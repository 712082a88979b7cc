/**
 * Deno 2.9 (the npm `deno` package, pinned in test/runtimes), in a project with a package.json
 * and node_modules: a stdio MCP server started zero-code (`deno run -A --preload` with the
 * entry's file), or instrumented by hand, answers every call; its failures carry a failure object whose `correlationId` is the
 * trace of a server span it exported, with the failure log records in that trace. Where the entry
 * has nothing to instrument, one line says so and the application runs as without it.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { denoBinary } from '../helpers/runtimes.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { run } from '../observability/helpers.js';
import { NAME } from '../packaging/install.js';
import {
  ENTRY_FILE,
  STARTED,
  callHttpServer,
  callServer,
  childEnv,
  expectAnswered,
  expectClientAndServerSpans,
  expectExported,
  exportTo,
  installProjects,
} from './project.js';

const PRELOAD = ['run', '-A', '--preload', ENTRY_FILE];

let dir: string;
let bare: string;
let receiver: OtlpReceiver;

beforeAll(async () => {
  ({ dir, bare } = await installProjects());
}, 300_000);

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await receiver.close();
});

describe('Deno: the zero-code entry', () => {
  it.each([
    ['SDK 1.x', 'server-v1.mjs'],
    ['SDK 2.x', 'server-v2.mjs'],
    ['SDK 1.x loaded with require()', 'server-v1.cjs'],
    ['SDK 1.x imported as npm: specifiers', 'server-v1-npm.mjs'],
  ])(
    'deno run --preload, %s: every call answered, failures in exported server traces with their log records, metrics',
    async (_, server) => {
      const { outcomes, stderr } = await callServer(
        denoBinary(),
        [...PRELOAD, server],
        dir,
        exportTo(receiver),
      );
      const ids = expectAnswered(outcomes);
      expect(stderr).toBe(STARTED);
      await expectExported(receiver, ids, { logs: true, metrics: true });
    },
  );

  it('Streamable HTTP, SDK 1.x: every call answered, failures in server traces sent at SIGTERM', async () => {
    const { outcomes, stderr, code } = await callHttpServer(
      denoBinary(),
      [...PRELOAD, 'http-v1.mjs'],
      dir,
      exportTo(receiver),
    );
    const ids = expectAnswered(outcomes);
    expect(stderr).toBe(STARTED);
    // Its own SIGTERM listener (closing the HTTP server) owns the exit.
    expect(code).toBe(0);
    await expectExported(receiver, ids, { logs: true, metrics: true });
  });

  it('process.exit() with the telemetry batched: the exit code kept, client and server span sent at exit', async () => {
    await expectClientAndServerSpans(denoBinary(), [...PRELOAD, 'exit-v1.mjs'], dir, receiver, {
      code: 3,
      stderr: STARTED,
    });
  });

  it('without an MCP SDK to instrument: one line, and the app runs as without the entry', async () => {
    const without = await run(denoBinary(), ['run', '-A', 'plain.mjs'], {
      cwd: bare,
      env: childEnv(),
      timeoutMs: 20_000,
    });
    const under = await run(denoBinary(), [...PRELOAD, 'plain.mjs'], {
      cwd: bare,
      env: childEnv(),
      timeoutMs: 20_000,
    });
    expect(without.code).toBe(0);
    expect(under.code).toBe(0);
    expect(under.stdout).toBe(without.stdout);
    expect(under.stderr).toMatch(
      new RegExp(
        `^${NAME}/register: telemetry not started: Deno \\S+ has no module loader hooks, and no MCP SDK this package instruments resolves from it: [^\\n]+\\n$`,
      ),
    );
  });
});

describe('Deno: manual mode', () => {
  it('instrumentServer() with the application-started SDK: failures in exported server traces with their log records, metrics', async () => {
    const { outcomes, stderr } = await callServer(
      denoBinary(),
      ['run', '-A', 'manual-v1.mjs'],
      dir,
      exportTo(receiver),
    );
    const ids = expectAnswered(outcomes);
    expect(stderr).toBe('');
    await expectExported(receiver, ids, { logs: true, metrics: true });
  });

  it('instrumentClient() and instrumentServer(): the client and the server span in the correlationId trace', async () => {
    await expectClientAndServerSpans(
      denoBinary(),
      ['run', '-A', 'manual-client-v1.mjs'],
      dir,
      receiver,
      { code: 0, stderr: '' },
    );
  });
});
