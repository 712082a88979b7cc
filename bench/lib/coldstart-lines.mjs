// The cold-start section's per-line rows: on each Node.js line of the test matrix, the server
// started bare and under the register entry, from a user's project: the packed tarballs of this
// build installed from the registry's point of view (one copy of each OpenTelemetry package,
// as `npm install` gives a user) with the MCP SDK and the OpenTelemetry JS line users run there.
// Measured in this repository's own tree instead, the register entry loaded two copies of
// OpenTelemetry's core packages (its devDependencies pin patch versions sdk-node does not), and
// read slower than any user's install.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_SDK, STACKS as APPLICATION_STACKS } from '../../scripts/otel-stacks.mjs';
import { ROOT, workspaceDependencies } from '../../scripts/workspace.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** What each OpenTelemetry JS line's application installs (sdk-node and its api). */
export const STACKS = {
  '2.x': APPLICATION_STACKS['sdk-node 2.x'],
  '3.x': APPLICATION_STACKS['sdk-node 3.x'],
};
/** The server's own packages: the MCP SDK and the zod its tool schema is written with. */
const SERVER = [MCP_SDK, 'zod@3'];

/** The targets: what the register entry may add, in ms: 150 on Node.js 20, 100 from 22.15 on. */
export const LIMITS_MS = { 20: 150, 22: 100, 24: 100, 26: 100 };

/**
 * The rows: each Node.js line of the matrix with the line its users run (2.x on 20, where 3.x
 * does not run; 3.x from 22), and 26 with 2.x as well. Node.js 22, 24 and 26 come from
 * test/runtimes (installed by scripts/install-fixtures.mjs).
 */
export const LINES = [
  { node: 20, otel: '2.x' },
  { node: 22, otel: '3.x' },
  { node: 24, otel: '3.x' },
  { node: 26, otel: '3.x' },
  { node: 26, otel: '2.x' },
];

/** The binary of Node.js `major`, or `undefined` (with the reason) when it is not installed. */
export function nodeBinary(major) {
  if (major === Number(process.versions.node.split('.')[0])) return { path: process.execPath };
  const path = join(ROOT, 'test/runtimes/node_modules', `node${major}`, 'bin', 'node');
  return existsSync(path)
    ? { path }
    : { reason: `${path} is missing: run node scripts/install-fixtures.mjs` };
}

/** The root's tarball and those of the workspace packages it depends on, packed into `into`. */
function pack(into) {
  const dirs = [ROOT, ...workspaceDependencies().map((d) => d.dir)];
  return dirs.map((dir) => {
    // --ignore-scripts: `npm run bench` has just built every package.
    const out = execFileSync(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', into],
      { cwd: dir, encoding: 'utf8' },
    );
    return join(into, JSON.parse(out)[0].filename);
  });
}

const CACHE = join(os.tmpdir(), 'omcp-coldstart');
let tarballs;

/**
 * The project of OpenTelemetry JS line `otel`: installed once per build (keyed by the tarballs'
 * contents) under os.tmpdir()/omcp-coldstart, with the section's server as `server.mjs`.
 */
export function lineProject(otel) {
  tarballs ??= pack(mkdtempSync(join(os.tmpdir(), 'omcp-coldstart-packs-')));
  const hash = createHash('sha256').update(JSON.stringify(STACKS[otel]));
  for (const t of tarballs) hash.update(readFileSync(t));
  const dir = join(CACHE, `${otel}-${hash.digest('hex').slice(0, 12)}`);
  if (!existsSync(join(dir, '.ready'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "name": "coldstart", "private": true }\n');
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', ...SERVER, ...STACKS[otel], ...tarballs],
      // Its output only matters when it fails, and the error then carries it.
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    writeFileSync(join(dir, '.ready'), '');
  }
  copyFileSync(here('./coldstart-server.mjs'), join(dir, 'server.mjs'));
  return dir;
}
