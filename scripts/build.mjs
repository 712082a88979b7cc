// Dual build: the same sources compiled once as ES modules and once as CommonJS,
// each folder marked with its own package.json "type" so Node picks the right loader.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

rmSync('dist', { recursive: true, force: true });
const targets = [
  { dir: 'dist/esm', type: 'module', args: [] },
  {
    dir: 'dist/cjs',
    type: 'commonjs',
    args: ['--module', 'CommonJS', '--moduleResolution', 'Node10'],
  },
];
/** Compiles `project` into `out`/esm and `out`/cjs, each folder marked with its module type. */
function build(project, out) {
  for (const { dir, type, args } of targets) {
    const target = `${out}/${dir.slice('dist/'.length)}`;
    execFileSync(process.execPath, [tsc, '-p', project, '--outDir', target, ...args], {
      stdio: 'inherit',
    });
    mkdirSync(target, { recursive: true });
    writeFileSync(`${target}/package.json`, `${JSON.stringify({ type }, null, 2)}\n`);
  }
}
// packages/tool-failure (`@omcp/tool-failure`): the data model alone, compiled from the one copy of
// its sources in src/tool-failure/ (which import nothing outside it but src/shared/safe.ts and
// src/shared/jsonrpc.ts), with the schema and the licence beside it. Built first: the root
// package imports it by name (the workspace link in node_modules), and its tarball bundles it.
const dataModel = 'packages/tool-failure';
rmSync(`${dataModel}/dist`, { recursive: true, force: true });
build(`${dataModel}/tsconfig.json`, `${dataModel}/dist`);
mkdirSync(`${dataModel}/schema`, { recursive: true });
copyFileSync('schema/tool-failure.schema.json', `${dataModel}/schema/tool-failure.schema.json`);
copyFileSync('LICENSE', `${dataModel}/LICENSE`);

// The root package (`@omcp/instrumentation-mcp`), which leaves src/tool-failure/ to the package above.
build('tsconfig.build.json', 'dist');
