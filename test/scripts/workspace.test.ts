// The layout of the workspace, read from the manifests (scripts/workspace.mjs): each package owns
// its folder (its src/ and test/), the dependencies between the packages run one way, and the
// build's project references follow them, so `tsc -b` orders the builds by itself.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ROOT,
  homeOf,
  manifestOf,
  workspaceDependencies,
  workspacePackages,
} from '../../scripts/workspace.mjs';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const packages = workspacePackages();
const names = new Set(packages.map((p) => p.name));
const manifest = (dir: string) => manifestOf(join(ROOT, dir)) as unknown as Manifest;
const own = (dir: string) =>
  Object.keys(manifest(dir).dependencies ?? {}).filter((name) => names.has(name));

describe('the workspace layout', () => {
  it('gives each package its own folder with src/, test/, a README and a manifest', () => {
    expect(packages.map((p) => p.name)).toEqual([
      '@omcp/instrumentation-mcp',
      '@omcp/tool-failure',
      '@omcp/mcp-failure-proxy',
      '@omcp/mcp-failures',
    ]);
    for (const { dir } of packages)
      for (const entry of ['src', 'test', 'README.md', 'package.json'])
        expect(existsSync(join(ROOT, dir, entry)), `${dir}/${entry}`).toBe(true);
    expect(homeOf(packages, 'packages/proxy/src/proxy.ts')?.name).toBe('@omcp/mcp-failure-proxy');
    expect(homeOf(packages, 'packages/mcp-failures/src/lookup/chain.ts')?.name).toBe(
      '@omcp/mcp-failures',
    );
    expect(homeOf(packages, 'src/retry/decide.ts')?.name).toBe('@omcp/instrumentation-mcp');
  });

  it('has the dependencies run one way: data model <- instrumentation <- proxy <- kit', () => {
    expect(own('packages/tool-failure')).toEqual([]);
    expect(own('.')).toEqual(['@omcp/tool-failure']);
    expect(own('packages/proxy').sort()).toEqual([
      '@omcp/instrumentation-mcp',
      '@omcp/tool-failure',
    ]);
    expect(own('packages/mcp-failures').sort()).toEqual([
      '@omcp/instrumentation-mcp',
      '@omcp/mcp-failure-proxy',
      '@omcp/tool-failure',
    ]);
    // No package reaches another of the workspace as a peer, optional or not.
    for (const { dir } of packages) {
      const m = manifest(dir);
      for (const field of [m.peerDependencies, m.optionalDependencies])
        expect(
          Object.keys(field ?? {}).filter((n) => names.has(n)),
          dir,
        ).toEqual([]);
    }
    // And no cycle: nothing a package depends on depends back on it.
    for (const { dir, name } of packages)
      for (const dep of workspaceDependencies(join(ROOT, dir)))
        expect(
          workspaceDependencies(dep.dir).map((d) => d.name),
          `${dep.name} on ${name}`,
        ).not.toContain(name);
  });

  it("has each package's build reference the builds of the packages it depends on", () => {
    const byName = new Map(packages.map((p) => [p.name, p.dir]));
    for (const { dir } of packages) {
      const config = JSON.parse(readFileSync(join(ROOT, dir, 'tsconfig.build.json'), 'utf8')) as {
        references?: Array<{ path: string }>;
      };
      const referenced = (config.references ?? []).map((r) => join(dir, r.path)).sort();
      const expected = own(dir)
        .map((name) => join(byName.get(name)!, 'tsconfig.build.json'))
        .sort();
      expect(referenced, dir).toEqual(expected);
    }
  });
});
