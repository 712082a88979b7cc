// The whole grid of OpenTelemetry JS lines x Node.js lines x package managers x install orders
// (test/packaging/lines-grid.test.ts): what `npm test` runs (the design card's stack on Node.js
// 20, 22, 24 and 26, the 3.x line on 22, 24 and 26, one mixed tree) plus the cells that do not fit
// its time: the other install order, pnpm 10 for both stacks, sdk-node 2.x on every Node.js line.
// Each cell installs once into the shared cache (os.tmpdir()/omcp-cells), three at a time.
//   node scripts/lines-grid.mjs                 every cell
//   node scripts/lines-grid.mjs 'pnpm'          the cells whose name matches the pattern
// Needs the build and test/runtimes installed: npm run build && node scripts/install-fixtures.mjs
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [pattern] = process.argv.slice(2);
const result = spawnSync('npx', ['vitest', 'run', 'test/packaging/lines-grid.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    OMCP_LINES_GRID: 'full',
    ...(pattern === undefined ? {} : { OMCP_LINES_CELLS: pattern }),
  },
});
process.exit(result.status ?? 1);
