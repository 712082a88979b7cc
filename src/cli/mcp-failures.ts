#!/usr/bin/env node
/**
 * The `mcp-failures` executable: `mcp-failures lookup <correlationId> (--jaeger-url URL | --file PATH)`.
 * A thin shell over `runMcpFailures` with Node's file system, fetch and standard streams.
 */
import { readFile } from 'node:fs/promises';
import { runMcpFailures } from './lookup-command.js';
import { handleStdoutErrors } from './stdout-errors.js';

const REQUEST_TIMEOUT_MS = 10_000;

handleStdoutErrors('mcp-failures', 2);

runMcpFailures(process.argv.slice(2), {
  readFile: (path) => readFile(path, 'utf8'),
  fetch: (url) => fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  now: () => Date.now(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`mcp-failures: unexpected error: ${String(error)}\n`);
    process.exitCode = 2;
  },
);
