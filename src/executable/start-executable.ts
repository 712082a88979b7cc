import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { firstLineOf } from '@omcp/tool-failure/wire';

/**
 * The start of an executable of the `@omcp` packages (`mcp-failure-proxy`, `mcp-failures`), whose
 * main module needs packages that are optional peers: when one of them is not installed, the
 * executable says so in one line, with the command that installs it, instead of a stack trace.
 * Here because it is the one package both executables depend on. Reads the executable's
 * package.json, and only when loading failed.
 */

/**
 * The one line for an error that loading a main module raised when the package it names is one
 * of `peers` (name to version range, a package.json's `peerDependencies`); undefined otherwise.
 */
export function missingPeerLine(
  executable: string,
  error: unknown,
  peers: Readonly<Record<string, string>>,
): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const text = typeof message === 'string' ? message : '';
  const name = Object.keys(peers).find((p) => text.includes(`'${p}'`) || text.includes(`'${p}/`));
  if (name === undefined) return undefined;
  return `${executable}: ${name} is not installed, and it runs on it: npm install '${name}@${peers[name]}'\n`;
}

/** The `peerDependencies` of package `name`, resolved from the running script. */
function peersOf(name: string): Record<string, string> {
  const from = createRequire(realpathSync(process.argv[1] ?? '.'));
  const manifest = JSON.parse(readFileSync(from.resolve(`${name}/package.json`), 'utf8')) as {
    peerDependencies?: Record<string, string>;
  };
  return manifest.peerDependencies ?? {};
}

/**
 * Loads and runs the main module of `executable`, of package `packageName`: `run` imports it and
 * calls its main function, whose result is the exit status. A peer dependency of the package that
 * is missing, whether the main module or a module it loads later names it, is one line on stderr
 * with the command that installs it; any other error the first line of its message; either way
 * exit status `failedCode`.
 */
export function startExecutable(
  executable: string,
  packageName: string,
  run: () => Promise<number>,
  failedCode: number,
): void {
  run().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      let line: string | undefined;
      try {
        line = missingPeerLine(executable, error, peersOf(packageName));
      } catch {
        // The manifest cannot be read: the error itself is the report.
      }
      process.stderr.write(line ?? `${executable}: ${firstLineOf(error)}\n`);
      process.exitCode = failedCode;
    },
  );
}
