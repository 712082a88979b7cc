// Installs the version-matrix fixtures (test/fixtures/sdk-*/): `npm ci` in each fixture whose
// node_modules is missing or older than its package-lock.json. Each fixture has its own lock
// file with only the MCP SDK (and zod); @opentelemetry/* come from the repository root.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fixtures = fileURLToPath(new URL('../test/fixtures/', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

for (const name of readdirSync(fixtures).sort()) {
  if (!name.startsWith('sdk-')) continue;
  const dir = join(fixtures, name);
  const lock = join(dir, 'package-lock.json');
  if (!existsSync(lock)) continue;
  // npm ci writes node_modules/.package-lock.json last; its age tells whether the install is current.
  const marker = join(dir, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) continue;
  console.log(`install-fixtures: npm ci in test/fixtures/${name}`);
  execFileSync(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
}
