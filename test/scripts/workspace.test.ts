// The layout of the workspace is read from the manifests (scripts/workspace.mjs); the places that
// must restate it for tools that cannot read it (tsc's exclude, npm's `files`) are checked here
// against that one reading, so a package added or moved cannot leave the root building or
// shipping its sources.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ROOT,
  homeOf,
  workspaceDependencies,
  workspacePackages,
} from '../../scripts/workspace.mjs';

const read = (file: string) =>
  JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, unknown>;
const members = workspacePackages().slice(1);
const folders = members.flatMap((m) => m.sources).map((f) => f.replace(/\/$/, ''));

describe('the workspace layout', () => {
  it('gives each package its own folders of src/, none shared', () => {
    expect(folders.length).toBeGreaterThanOrEqual(members.length);
    expect(new Set(folders).size).toBe(folders.length);
    expect(homeOf(workspacePackages(), 'src/proxy/proxy.ts')?.name).toBe('@omcp/mcp-failure-proxy');
    expect(homeOf(workspacePackages(), 'src/lookup/chain.ts')?.name).toBe('@omcp/mcp-failures');
    expect(homeOf(workspacePackages(), 'src/retry/decide.ts')?.name).toBe(
      read('package.json').name,
    );
  });

  it("leaves every other package's folders out of the root's build and tarball", () => {
    const build = read('tsconfig.build.json') as { exclude: string[] };
    const files = (read('package.json') as { files: string[] }).files;
    for (const folder of folders) {
      expect(build.exclude, `tsconfig.build.json exclude ${folder}`).toContain(folder);
      expect(files, `package.json files !${folder}`).toContain(`!${folder}`);
    }
  });

  it('has the root depend on every other package, and the proxy on the data model', () => {
    const names = workspaceDependencies()
      .map((d) => d.name)
      .sort();
    expect(names).toEqual(members.map((m) => m.name).sort());
    expect(workspaceDependencies(join(ROOT, 'packages/proxy')).map((d) => d.name)).toEqual([
      '@omcp/tool-failure',
    ]);
  });
});
