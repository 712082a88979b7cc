#!/usr/bin/env node
/**
 * The `mcp-failures` executable: `mcp-failures lookup <correlationId> (--jaeger-url URL | --file PATH)`
 * and `mcp-failures check server (-- COMMAND ... | --url URL)`. A thin shell over
 * `runMcpFailures` and `runCheckServer` with Node's file system, fetch and standard streams.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { runCheckServer } from './check-server-command.js';
import { connectToServer } from './check-server-session.js';
import { runMcpFailures } from './lookup-command.js';
import { handleStdoutErrors } from './stdout-errors.js';

const REQUEST_TIMEOUT_MS = 10_000;

handleStdoutErrors('mcp-failures', 2);

const argv = process.argv.slice(2);
const run =
  argv[0] === 'check'
    ? runCheckServer(argv, {
        readFile: (path) => readFile(path, 'utf8'),
        writeFile: (path, text) => writeFile(path, text, 'utf8'),
        connect: connectToServer,
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      })
    : runMcpFailures(argv, {
        readFile: (path) => readFile(path, 'utf8'),
        fetch: (url) => fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        now: () => Date.now(),
      });

run.then(
  (code) => {
    // The lookup usage is the top-level help; the second command is one line under it.
    if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'))
      process.stdout.write(
        '\nAlso: mcp-failures check server (-- COMMAND ... | --url URL): see mcp-failures check server --help\n',
      );
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`mcp-failures: unexpected error: ${String(error)}\n`);
    process.exitCode = 2;
  },
);
