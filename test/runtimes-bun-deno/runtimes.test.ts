/**
 * Bun 1.4 and Deno 2.9 (the npm `bun` and `deno` packages, pinned in test/runtimes), each in a
 * project with a package.json and node_modules: a stdio MCP server started zero-code the ways the
 * runtime preloads a module (`bun --preload` and `preload` in bunfig.toml; `deno run -A --preload`
 * with the entry's file), or instrumented by hand, answers every call; its failures carry a
 * failure object whose `correlationId` is the trace of a server span it exported, with the
 * failure log records in that trace. Where the entry has nothing to instrument, one line says so
 * and the application runs as without it.
 */
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bunBinary, denoBinary } from '../helpers/runtimes.js';
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

/** How each runtime runs a file, with and without the entry, and what only it can do. */
const RUNTIMES = [
  {
    name: 'Bun',
    binary: bunBinary,
    /** Arguments that run a file. */
    run: [] as string[],
    /** Arguments that run a file under the zero-code entry. */
    preload: ['--preload', `${NAME}/register`],
    how: 'bun --preload',
    servers: [] as Array<[string, string]>,
    /** Bun reads `preload` from a bunfig.toml in the working directory. */
    bunfig: true,
  },
  {
    name: 'Deno',
    binary: denoBinary,
    run: ['run', '-A'],
    preload: ['run', '-A', '--preload', ENTRY_FILE],
    how: 'deno run --preload',
    servers: [['SDK 1.x imported as npm: specifiers', 'server-v1-npm.mjs']] as Array<
      [string, string]
    >,
    bunfig: false,
  },
] as const;

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

describe.each(RUNTIMES)('$name', (rt) => {
  describe('the zero-code entry', () => {
    it.each([
      ['SDK 1.x', 'server-v1.mjs'],
      ['SDK 2.x', 'server-v2.mjs'],
      ['SDK 1.x loaded with require()', 'server-v1.cjs'],
      ...rt.servers,
    ])(
      `${rt.how}, %s: every call answered, failures in exported server traces with their log records, metrics`,
      async (_, server) => {
        const { outcomes, stderr } = await callServer(
          rt.binary(),
          [...rt.preload, server],
          dir,
          exportTo(receiver),
        );
        const ids = expectAnswered(outcomes);
        expect(stderr).toBe(STARTED);
        await expectExported(receiver, ids, { logs: true, metrics: true });
      },
    );

    // Only Bun has a configuration file that preloads (Deno's is not read for --preload).
    if (rt.bunfig)
      it('preload in bunfig.toml: the same', async () => {
        const { outcomes, stderr } = await callServer(
          rt.binary(),
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
        rt.binary(),
        [...rt.preload, 'http-v1.mjs'],
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
      await expectClientAndServerSpans(rt.binary(), [...rt.preload, 'exit-v1.mjs'], dir, receiver, {
        code: 3,
        stderr: STARTED,
      });
    });

    it('without an MCP SDK to instrument: one line, and the app runs as without the entry', async () => {
      const options = { cwd: bare, env: childEnv(), timeoutMs: 20_000 };
      const without = await run(rt.binary(), [...rt.run, 'plain.mjs'], options);
      const under = await run(rt.binary(), [...rt.preload, 'plain.mjs'], options);
      expect(without.code).toBe(0);
      expect(under.code).toBe(0);
      expect(under.stdout).toBe(without.stdout);
      expect(under.stderr).toMatch(
        new RegExp(
          `^${NAME}/register: telemetry not started: ${rt.name} \\S+ has no module loader hooks, and no MCP SDK this package instruments resolves from it: [^\\n]+\\n$`,
        ),
      );
    });
  });

  describe('manual mode', () => {
    it('instrumentServer() with the application-started SDK: failures in exported server traces with their log records, metrics', async () => {
      const { outcomes, stderr } = await callServer(
        rt.binary(),
        [...rt.run, 'manual-v1.mjs'],
        dir,
        exportTo(receiver),
      );
      const ids = expectAnswered(outcomes);
      expect(stderr).toBe('');
      await expectExported(receiver, ids, { logs: true, metrics: true });
    });

    it('instrumentClient() and instrumentServer(): the client and the server span in the correlationId trace', async () => {
      await expectClientAndServerSpans(
        rt.binary(),
        [...rt.run, 'manual-client-v1.mjs'],
        dir,
        receiver,
        { code: 0, stderr: '' },
      );
    });
  });
});
