import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Thrown on importing an adapter whose framework is not installed; its message is one line. */
export class MissingFrameworkError extends Error {
  override readonly name = 'MissingFrameworkError';
  constructor(
    readonly adapter: string,
    readonly framework: string,
  ) {
    super(
      `@omcp/instrumentation-mcp/frameworks/${adapter} needs ${framework}, which is not installed: npm install ${framework}`,
    );
  }
}

/**
 * Throws `MissingFrameworkError` unless `framework` is installed where the application finds its
 * packages: a `node_modules/<framework>` folder above the working directory or above the entry
 * script. Looked up on disk, not resolved, so a package whose exports map has no `require` or
 * `package.json` entry is still found. Each adapter calls it once, when it is imported.
 */
export function requireFramework(adapter: string, framework: string): void {
  const entry = process.argv[1];
  for (const start of entry === undefined ? [process.cwd()] : [process.cwd(), dirname(entry)])
    if (isInstalled(framework, start)) return;
  throw new MissingFrameworkError(adapter, framework);
}

function isInstalled(framework: string, start: string): boolean {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', framework, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}
