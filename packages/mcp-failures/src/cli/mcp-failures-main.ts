/**
 * The `mcp-failures` executable's work, loaded by `mcp-failures.ts`: the commands `commands.ts` lists (`lookup`, `check server`,
 * `check client`, `check proxy`). A thin shell over `runMcpFailures`,
 * `runCheckServer`, `runCheckClient` and `runCheckProxy` with Node's file system, fetch and
 * standard streams.
 */
import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { runCheckClient } from './check-client-command.js';
import { runServeScripted } from './check-client-serve.js';
import { runCheckProxy } from './check-proxy-command.js';
import { runCheckServer } from './check-server-command.js';
import { connectToServer } from './check-server-session.js';
import { route as routeOf, TOP_USAGE } from './commands.js';
import { runMcpFailures } from './lookup-command.js';
import { handleStdoutErrors } from '@omcp/instrumentation-mcp/executable';

const REQUEST_TIMEOUT_MS = 10_000;

handleStdoutErrors('mcp-failures', 2);

const argv = process.argv.slice(2);
const script = realpathSync(process.argv[1] ?? '');
/** The command line that runs this executable again (the scripted servers of check client/proxy). */
const self = [process.execPath, script];
/**
 * The vectors of `check proxy`, the kit's own, resolved by package name from the script that
 * runs (this one, a self-reference; or the instrumentation's deprecated `mcp-failures`, beside
 * which the kit is installed).
 */
const intermediaryCases = (): string =>
  createRequire(script).resolve('@omcp/mcp-failures/conformance/intermediary-cases.json');
const out = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
};
const files = {
  readFile: (path: string) => readFile(path, 'utf8'),
  writeFile: (path: string, text: string) => writeFile(path, text, 'utf8'),
};
/** Runs the command `argv` names; the help and usage mistakes are answered here. */
/** The executable's work: runs the command of `process.argv` and resolves to the exit status. */
export function dispatch(): Promise<number> {
  const route = routeOf(argv);
  if (route.kind === 'help') {
    out.stdout(TOP_USAGE);
    return Promise.resolve(0);
  }
  if (route.kind === 'list') {
    out.stderr(TOP_USAGE);
    return Promise.resolve(2);
  }
  if (route.kind === 'usage') {
    out.stderr(`mcp-failures: ${route.message} (mcp-failures --help for usage)\n`);
    return Promise.resolve(2);
  }
  switch (route.command) {
    case 'lookup':
      return runMcpFailures(argv, {
        readFile: files.readFile,
        fetch: (url) => fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
        ...out,
        now: () => Date.now(),
      });
    case 'check client':
      return runCheckClient(argv, { self, writeFile: files.writeFile, ...out });
    case 'check proxy':
      return runCheckProxy(argv, {
        self,
        vectors: intermediaryCases(),
        writeFile: files.writeFile,
        ...out,
      });
    case 'serve-scripted':
      return runServeScripted(argv, out);
    case 'check server':
      return runCheckServer(argv, { ...files, connect: connectToServer, ...out });
  }
}
