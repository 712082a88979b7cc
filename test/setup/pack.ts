/**
 * Vitest global setup: packs every workspace package once for the run (they are built by
 * `pretest`), so each test that installs a tarball installs the same one and none packs again.
 * The folder is handed to the test workers through the environment and removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, workspacePackages } from '../../scripts/workspace.mjs';
import { PACKS_ENV, packInto } from '../packaging/install.js';

export default function setup(): () => void {
  const into = mkdtempSync(join(tmpdir(), 'omcp-packs-'));
  for (const { dir } of workspacePackages()) packInto(join(ROOT, dir), into);
  process.env[PACKS_ENV] = into;
  return () => rmSync(into, { recursive: true, force: true });
}
