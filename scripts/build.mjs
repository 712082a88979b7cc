// The workspace's build: every package compiled from the one copy of its sources in src/, once as
// ES modules and (for the packages with a library entry) once as CommonJS, each folder marked
// with its own package.json "type" so Node picks the right loader. Each package reaches the
// others by name only (never by a relative path into their sources), so no source is compiled
// into two packages. The order follows the imports:
//   1. @omcp/tool-failure (packages/tool-failure): the data model, which imports no package.
//   2. @omcp/instrumentation-mcp (the root), less the deprecated `./proxy` re-export.
//   3. @omcp/mcp-failure-proxy (packages/proxy), on the root's `./internal` entry.
//   4. @omcp/mcp-failures (packages/mcp-failures), on both.
//   5. The root's `./proxy` re-export of step 3, and its deprecated executables.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative } from 'node:path';
import { linkUnderOwnName } from './workspace.mjs';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

const ESM = { dir: 'esm', type: 'module', args: [] };
const CJS = {
  dir: 'cjs',
  type: 'commonjs',
  args: ['--module', 'CommonJS', '--moduleResolution', 'Node10'],
};

/** Compiles `project` into `out`/esm and `out`/cjs (or the `targets` given), each marked with its module type. */
function build(project, out, targets = [ESM, CJS]) {
  for (const { dir, type, args } of targets) {
    const target = `${out}/${dir}`;
    execFileSync(process.execPath, [tsc, '-p', project, '--outDir', target, ...args], {
      stdio: 'inherit',
    });
    mkdirSync(target, { recursive: true });
    writeFileSync(`${target}/package.json`, `${JSON.stringify({ type }, null, 2)}\n`);
  }
}

/** A workspace package: its build cleared, compiled, and the licence beside it. */
function buildPackage(dir, targets) {
  rmSync(`${dir}/dist`, { recursive: true, force: true });
  build(`${dir}/tsconfig.json`, `${dir}/dist`, targets);
  copyFileSync('LICENSE', `${dir}/LICENSE`);
}

// 1. The data model, with the schema beside it. Its sources are src/tool-failure/ and the three
// pure helpers it shares (src/shared/safe.ts, src/shared/jsonrpc.ts, src/shared/first-line.ts).
buildPackage('packages/tool-failure');
mkdirSync('packages/tool-failure/schema', { recursive: true });
copyFileSync(
  'schema/tool-failure.schema.json',
  'packages/tool-failure/schema/tool-failure.schema.json',
);

// 2. The root, less the folders that are other packages' sources (tsconfig.build.json).
rmSync('dist', { recursive: true, force: true });
build('tsconfig.build.json', 'dist');

// The proxy and the kit import the root by name, which npm does not link: linked here.
linkUnderOwnName('.');

// 3 and 4. The proxy (a library and an executable), then the kit (executables only: ES modules),
// with its vectors, which the root keeps shipping for one release.
buildPackage('packages/proxy');
buildPackage('packages/mcp-failures', [ESM]);
rmSync('packages/mcp-failures/conformance', { recursive: true, force: true });
cpSync('conformance', 'packages/mcp-failures/conformance', { recursive: true });

// 5. The root's deprecated `./proxy`, now that the proxy's types exist; and its deprecated
// executables, as ES modules only (what runs them is an ES module, and a CommonJS copy could not
// import the home package's executable by its file URL).
build('tsconfig.deprecated.json', 'dist');
build('tsconfig.executables.json', 'dist', [ESM]);

// The root's executables keep the paths they had (package.json `bin`, and scripts or MCP client
// settings that name the file): each runs its deprecated module, which runs the home package's.
for (const [name, target] of Object.entries(JSON.parse(readFileSync('package.json', 'utf8')).bin)) {
  const module = relative(dirname(target), `dist/esm/deprecated/${name}.js`);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(
    target,
    `#!/usr/bin/env node\nimport '${module.startsWith('.') ? module : `./${module}`}';\n`,
    {
      mode: 0o755,
    },
  );
}
