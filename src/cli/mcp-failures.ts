#!/usr/bin/env node
/**
 * The `mcp-failures` executable: `mcp-failures lookup <correlationId> (--jaeger-url URL | --file PATH)`
 * and `mcp-failures check server|client|proxy`. A thin shell over `runMcpFailures`,
 * `runCheckServer`, `runCheckClient` and `runCheckProxy` with Node's file system, fetch and
 * standard streams.
 */
import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runCheckClient } from './check-client-command.js';
import { runServeScripted } from './check-client-serve.js';
import { runCheckProxy } from './check-proxy-command.js';
import { runCheckServer } from './check-server-command.js';
import { connectToServer } from './check-server-session.js';
import { runMcpFailures } from './lookup-command.js';
import { handleStdoutErrors } from './stdout-errors.js';

const REQUEST_TIMEOUT_MS = 10_000;

handleStdoutErrors('mcp-failures', 2);

const argv = process.argv.slice(2);
const script = realpathSync(process.argv[1] ?? '');
/** The command line that runs this executable again (the scripted servers of check client/proxy). */
const self = [process.execPath, script];
/** dist/{esm,cjs}/cli/ -> the package root, where conformance/ is. */
const packageRoot = join(dirname(script), '..', '..', '..');
const out = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
};
const files = {
  readFile: (path: string) => readFile(path, 'utf8'),
  writeFile: (path: string, text: string) => writeFile(path, text, 'utf8'),
};
const run =
  argv[0] !== 'check'
    ? runMcpFailures(argv, {
        readFile: files.readFile,
        fetch: (url) => fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
        ...out,
        now: () => Date.now(),
      })
    : argv[1] === 'client'
      ? runCheckClient(argv, { self, writeFile: files.writeFile, ...out })
      : argv[1] === 'proxy'
        ? runCheckProxy(argv, {
            self,
            vectors: join(packageRoot, 'conformance', 'intermediary-cases.json'),
            writeFile: files.writeFile,
            ...out,
          })
        : argv[1] === 'serve-scripted'
          ? runServeScripted(argv, out)
          : runCheckServer(argv, { ...files, connect: connectToServer, ...out });

run.then(
  (code) => {
    // The lookup usage is the top-level help; the second command is one line under it.
    if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'))
      process.stdout.write(
        '\nAlso: mcp-failures check server|client|proxy, black-box conformance checks: see mcp-failures check server --help, check client --help, check proxy --help\n',
      );
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`mcp-failures: unexpected error: ${String(error)}\n`);
    process.exitCode = 2;
  },
);
