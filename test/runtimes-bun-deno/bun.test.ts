/**
 * Bun 1.4 (the npm `bun` package, pinned in test/runtimes): a stdio MCP server started zero-code
 * the two ways Bun preloads a module (`bun --preload`, `preload` in bunfig.toml), or instrumented
 * by hand, answers every call; its failures carry a failure object whose `correlationId` is the
 * trace of a server span it exported, with the failure log records in that trace. Where the entry
 * has nothing to instrument, one line says so and the application runs as without it.
 */
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bunBinary } from '../helpers/runtimes.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { run } from '../observability/helpers.js';
import { NAME } from '../packaging/install.js';
import {
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

const PRELOAD = ['--preload', `${NAME}/register`];

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

describe('Bun: the zero-code entry', () => {
  it.each([
    ['SDK 1.x', 'server-v1.mjs'],
    ['SDK 2.x', 'server-v2.mjs'],
    ['SDK 1.x loaded with require()', 'server-v1.cjs'],
  ])(
    'bun --preload, %s: every call answered, failures in exported server traces with their log records, metrics',
    async (_, server) => {
      const { outcomes, stderr } = await callServer(
        bunBinary(),
        [...PRELOAD, server],
        dir,
        exportTo(receiver),
      );
      const ids = expectAnswered(outcomes);
      expect(stderr).toBe(STARTED);
      await expectExported(receiver, ids, { logs: true, metrics: true });
    },
  );

  it('preload in bunfig.toml: the same', async () => {
    const { outcomes, stderr } = await callServer(
      bunBinary(),
      ['../server-v1.mjs'],
      join(dir, 'bunfig'),
      exportTo(receiver),
    );
    const ids = expectAnswered(outcomes);
    expect(stderr).toBe(STARTED);
    await expectExported(receiver, ids, { logs: true, metrics: true });
  });

  it('Streamable HTTP, SDK 1.x: every call answered, failures in server traces sent at SIGTERM', async () => {
    const { outcomes, stderr, code } = await callHttpServer(
      bunBinary(),
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
    await expectClientAndServerSpans(bunBinary(), [...PRELOAD, 'exit-v1.mjs'], dir, receiver, {
      code: 3,
      stderr: STARTED,
    });
  });

  it('without an MCP SDK to instrument: one line, and the app runs as without the entry', async () => {
    const without = await run(bunBinary(), ['plain.mjs'], {
      cwd: bare,
      env: childEnv(),
      timeoutMs: 20_000,
    });
    const under = await run(bunBinary(), [...PRELOAD, 'plain.mjs'], {
      cwd: bare,
      env: childEnv(),
      timeoutMs: 20_000,
    });
    expect(without.code).toBe(0);
    expect(under.code).toBe(0);
    expect(under.stdout).toBe(without.stdout);
    expect(under.stderr).toMatch(
      new RegExp(
        `^${NAME}/register: telemetry not started: Bun \\S+ has no module loader hooks, and no MCP SDK this package instruments resolves from it: [^\\n]+\\n$`,
      ),
    );
  });
});

describe('Bun: manual mode', () => {
  it('instrumentServer() with the application-started SDK: failures in exported server traces with their log records, metrics', async () => {
    const { outcomes, stderr } = await callServer(
      bunBinary(),
      ['manual-v1.mjs'],
      dir,
      exportTo(receiver),
    );
    const ids = expectAnswered(outcomes);
    expect(stderr).toBe('');
    await expectExported(receiver, ids, { logs: true, metrics: true });
  });

  it('instrumentClient() and instrumentServer(): the client and the server span in the correlationId trace', async () => {
    await expectClientAndServerSpans(bunBinary(), ['manual-client-v1.mjs'], dir, receiver, {
      code: 0,
      stderr: '',
    });
  });
});
