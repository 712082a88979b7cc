// The programs the tests run that npm cannot install: promtool and prometheus (test/observability/),
// from the Debian package `prometheus`, and prometheus-alertmanager and amtool from
// `prometheus-alertmanager`. install-fixtures.mjs (the pretest step) calls
// installSystemPackages(): where they are missing it installs the package with apt-get as root,
// and otherwise says in one line what to install, so that `npm ci && npm test` needs nothing
// installed by hand on a Debian or Ubuntu machine.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The programs the tests need beyond Node.js and npm, each with the Debian package providing it. */
export const SYSTEM_PROGRAMS = [
  { program: 'promtool', debianPackage: 'prometheus' },
  { program: 'prometheus', debianPackage: 'prometheus' },
  { program: 'prometheus-alertmanager', debianPackage: 'prometheus-alertmanager' },
  { program: 'amtool', debianPackage: 'prometheus-alertmanager' },
];

/**
 * Decides what to do about the programs not found: the Debian packages to install (none when
 * nothing is missing or this process cannot install them) and the one line to print about it
 * (`undefined` when nothing is missing).
 */
export function planSystemPackages({ missing, root, aptGet }) {
  const needed = SYSTEM_PROGRAMS.filter((p) => missing.includes(p.program));
  if (needed.length === 0) return { install: [], line: undefined };
  const packages = [...new Set(needed.map((p) => p.debianPackage))];
  const what = `${needed.map((p) => p.program).join(' and ')}, which test/observability runs, ${needed.length === 1 ? 'is' : 'are'} not installed`;
  const command = `apt-get install -y --no-install-recommends ${packages.join(' ')}`;
  if (root && aptGet) return { install: packages, line: `install-fixtures: ${command} (${what})` };
  const how = aptGet
    ? `run \`${command}\` as root`
    : `install the Debian package ${packages.join(' ')} or Prometheus's release binaries`;
  return { install: [], line: `install-fixtures: ${what}: ${how}, or those tests fail` };
}

/** Whether an executable file `program` is in one of the `PATH` directories. */
export function onPath(program, path = process.env.PATH ?? '') {
  return path.split(delimiter).some((dir) => {
    if (dir === '') return false;
    const file = join(dir, program);
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** Installs what `planSystemPackages` decides, printing its line; a failed install is one more line. */
export function installSystemPackages(log = console.log) {
  const missing = SYSTEM_PROGRAMS.map((p) => p.program).filter((p) => !onPath(p));
  const plan = planSystemPackages({
    missing,
    root: process.getuid?.() === 0,
    aptGet: onPath('apt-get'),
  });
  if (plan.line !== undefined) log(plan.line);
  if (plan.install.length === 0) return;
  const apt = (args) =>
    execFileSync('apt-get', args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    apt(['update', '-qq']);
    apt(['install', '-y', '-qq', '--no-install-recommends', ...plan.install]);
  } catch (error) {
    const detail = String(error.stderr ?? error.message)
      .trim()
      .split('\n')
      .at(-1);
    log(`install-fixtures: apt-get failed (${detail}); the tests that need it will fail`);
  }
}
