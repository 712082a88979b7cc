// Dual build: the same sources compiled once as ES modules and once as CommonJS,
// each folder marked with its own package.json "type" so Node picks the right loader.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
for (const { dir, type, args } of targets) {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', dir, ...args], {
    stdio: 'inherit',
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/package.json`, `${JSON.stringify({ type }, null, 2)}\n`);
}
