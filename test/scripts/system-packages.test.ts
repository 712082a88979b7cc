import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../observability/helpers.js';
import { onPath, planSystemPackages } from '../../scripts/system-packages.mjs';

const BOTH = ['promtool', 'prometheus'];

describe('planSystemPackages (what the pretest step installs)', () => {
  it('does nothing and says nothing when every program is there', () => {
    expect(planSystemPackages({ missing: [], root: true, aptGet: true })).toEqual({
      install: [],
      line: undefined,
    });
    // Programs the tests do not need are not its business.
    expect(planSystemPackages({ missing: ['jaeger'], root: true, aptGet: true }).line).toBe(
      undefined,
    );
  });

  it('as root with apt-get: installs the Debian package once, saying what and why in one line', () => {
    expect(planSystemPackages({ missing: BOTH, root: true, aptGet: true })).toEqual({
      install: ['prometheus'],
      line: 'install-fixtures: apt-get install -y --no-install-recommends prometheus (promtool and prometheus, which test/observability runs, are not installed)',
    });
    expect(planSystemPackages({ missing: ['promtool'], root: true, aptGet: true })).toEqual({
      install: ['prometheus'],
      line: 'install-fixtures: apt-get install -y --no-install-recommends prometheus (promtool, which test/observability runs, is not installed)',
    });
  });

  it('not root, or without apt-get: installs nothing and says in one line what to install', () => {
    expect(planSystemPackages({ missing: BOTH, root: false, aptGet: true })).toEqual({
      install: [],
      line: 'install-fixtures: promtool and prometheus, which test/observability runs, are not installed: run `apt-get install -y --no-install-recommends prometheus` as root, or those tests fail',
    });
    expect(planSystemPackages({ missing: BOTH, root: true, aptGet: false })).toEqual({
      install: [],
      line: "install-fixtures: promtool and prometheus, which test/observability runs, are not installed: install the Debian package prometheus or Prometheus's release binaries, or those tests fail",
    });
  });
});

describe('onPath', () => {
  it('finds an executable file in a PATH directory, not a plain file, a folder or a missing one', () => {
    const [a, b] = [tempDir('path-a'), tempDir('path-b')];
    mkdirSync(join(b, 'sub'));
    writeFileSync(join(b, 'promtool'), '#!/bin/sh\n');
    chmodSync(join(b, 'promtool'), 0o755);
    writeFileSync(join(a, 'prometheus'), 'not executable\n');
    const path = [a, '', b].join(delimiter);
    expect(onPath('promtool', path)).toBe(true);
    expect(onPath('prometheus', path)).toBe(false);
    expect(onPath('sub', path)).toBe(false);
    expect(onPath('promtool', a)).toBe(false);
  });
});
