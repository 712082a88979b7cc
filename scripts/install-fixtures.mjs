// Installs the version-matrix fixtures (test/fixtures/sdk-*/ and otel-*/), the pinned MCP reference
// servers and mcp-use (test/fixtures/reference-servers/, mcp-use/, for test/gates), the other
// third-party packages the tests run (pino and winston in app-logs/, the AI SDK's MCP client in
// ai-sdk/, fastmcp and tmcp in server-frameworks/, the Bun and Deno tests' application in
// runtimes-bun-deno/, a Worker's dependencies in workers/ and wrangler and miniflare in
// workers/tools/, ...: each folder listed below), the benchmark's peer instrumentations
// (bench/peers/, run by the benchmark's smoke test), Node.js 22, 24 and 26 with pnpm 10, Bun and
// Deno (test/runtimes/) and the gates' third-party tools (test/gates/tools/: the official
// conformance suite, the MCP Inspector, publint and attw): `npm ci` in each folder
// whose node_modules is missing or older than its package-lock.json. Each sdk-* fixture has its own
// lock file with only the MCP SDK (and zod); @opentelemetry/* come from the repository root, or for
// the OpenTelemetry JS 3.x line from test/fixtures/otel-3.x/ (otel-2.x/ has no lock file).
// First, the programs npm cannot install (Prometheus, for test/observability): system-packages.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installSystemPackages } from './system-packages.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixtures = join(root, 'test', 'fixtures');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

installSystemPackages();

const folders = readdirSync(fixtures)
  .sort()
  .filter((name) => name.startsWith('sdk-') || name.startsWith('otel-'))
  .map((name) => join(fixtures, name));
folders.push(
  join(fixtures, 'reference-servers'),
  join(fixtures, 'mcp-use'),
  join(fixtures, 'app-logs'),
  join(fixtures, 'ai-sdk'),
  join(fixtures, 'server-frameworks'),
  join(fixtures, 'runtimes-bun-deno'),
  join(fixtures, 'workers'),
  join(fixtures, 'workers', 'tools'),
  join(root, 'bench', 'peers'),
  join(root, 'test', 'runtimes'),
  join(root, 'test', 'gates', 'tools'),
);

for (const dir of folders) {
  const lock = join(dir, 'package-lock.json');
  if (!existsSync(lock)) continue;
  // npm ci writes node_modules/.package-lock.json last; its age tells whether the install is current.
  const marker = join(dir, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) continue;
  console.log(`install-fixtures: npm ci in ${relative(root, dir)}`);
  execFileSync(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
}
