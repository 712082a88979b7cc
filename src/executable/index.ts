/**
 * The start of a command-line program of the `@omcp` packages (the `mcp-failure-proxy` and
 * `mcp-failures` executables): a missing peer reported in one line, stdout errors handled, and its
 * command line split at `--`.
 *
 * @module @omcp/instrumentation-mcp/executable
 */
export { splitAtDashes } from './argv.js';
export { missingPeerLine, startExecutable } from './start-executable.js';
export { handleStdoutErrors } from './stdout-errors.js';
