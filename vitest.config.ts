import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { isTimed, isUnit, testFiles } from './test/setup/tiers.js';

const root = fileURLToPath(new URL('.', import.meta.url));

// Tests run the sources: each workspace package name resolves where tsconfig.json's `paths` map it
// for the typecheck (the data model's one copy in packages/tool-failure/src), so a test and the
// module under test share it. The mapping is written once, there.
const { compilerOptions } = JSON.parse(readFileSync(`${root}tsconfig.json`, 'utf8')) as {
  compilerOptions: { paths: Record<string, [string]> };
};
const alias = Object.entries(compilerOptions.paths).map(([name, [target]]) => ({
  find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
  replacement: fileURLToPath(new URL(target, import.meta.url)),
}));

// Two tiers (test/setup/tiers.ts): `unit`, in-process tests that start no process and open no
// socket, and `integration`, everything else (child processes, real installs of the packed
// tarballs, loopback servers, third-party programs), of which the files that measure time run
// last, one at a time (`timed`). `npm test` runs them all; `npm run test:unit` the first alone; `npm test -w <package>`, run in that package's folder, its own tests alone.
const workspaces = (
  JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { workspaces: string[] }
).workspaces;
const here = relative(root, process.cwd());
const scope = here === '' || here.startsWith('..') ? undefined : `${here}/`;
const files = testFiles(
  root,
  workspaces.map((w) => (w === '.' ? 'test' : `${w}/test`)),
).filter((file) => scope === undefined || file.startsWith(scope));
const unit = files.filter((file) => isUnit(`${root}${file}`));
const timed = files.filter((file) => !unit.includes(file) && isTimed(`${root}${file}`));
const integration = files.filter((file) => !unit.includes(file) && !timed.includes(file));

export default defineConfig({
  root,
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One test file per core, and at least two: most integration files wait on child processes,
    // installs and sockets, so two files keep a 2-core machine busy where vitest's default (one
    // less than the cores) would run one file at a time. `--maxWorkers` on the command line wins.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: integration,
          // Every workspace package packed once for the run (pretest has built them).
          globalSetup: ['test/setup/pack.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'timed',
          include: timed,
          globalSetup: ['test/setup/pack.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
