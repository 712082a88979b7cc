// Every public name of the workspace has exactly one home package: the package whose own sources
// define it. Another package may hand the name on (a deprecated subpath that re-exports its home
// whole, or a re-export of the home's public entry), never define it again. The list of names and
// their homes is the generated API reference's (scripts/api-reference.mjs).
import { describe, expect, it } from 'vitest';
import { apiReference } from '../../scripts/api-reference.mjs';

const { exported } = apiReference();

describe('public names', () => {
  it('each has one home package, where its source is', () => {
    const homes = new Map<string, Set<string>>();
    const homeless: string[] = [];
    for (const { entry, names } of exported)
      for (const n of names) {
        if (n.home === undefined) homeless.push(`${entry.importPath}: ${n.name}`);
        else (homes.get(n.name) ?? homes.set(n.name, new Set()).get(n.name)!).add(n.home);
      }
    expect(homeless).toEqual([]);
    const twice = [...homes].filter(([, set]) => set.size > 1).map(([name]) => name);
    expect(twice, 'names defined in two packages').toEqual([]);

    const byHome = new Map<string, string[]>();
    for (const [name, [home]] of [...homes].map(([n, s]) => [n, [...s]] as const))
      (byHome.get(home!) ?? byHome.set(home!, []).get(home!)!).push(name);
    for (const [home, names] of byHome)
      console.log(`public names: ${names.length} at home in ${home}: ${names.sort().join(', ')}`);
    // The kit (@omcp/mcp-failures) has executables and vectors, and no names.
    expect([...byHome.keys()].sort()).toEqual([
      '@omcp/instrumentation-mcp',
      '@omcp/mcp-failure-proxy',
      '@omcp/tool-failure',
    ]);
  });

  it('reach another package only as a deprecated whole re-export or from the home public entry', () => {
    const publicOfHome = new Set(
      exported
        .filter(({ entry }) => !isInternal(entry.subpath) && entry.reexports === undefined)
        .flatMap(({ entry, names }) =>
          names.filter((n) => n.home === entry.package).map((n) => `${entry.package} ${n.name}`),
        ),
    );
    const strays: string[] = [];
    for (const { entry, names } of exported) {
      if (entry.reexports !== undefined) {
        // The whole re-export of a home: every name it hands on is at home there.
        for (const n of names)
          if (n.home !== entry.reexports) strays.push(`${entry.importPath}: ${n.name}`);
        continue;
      }
      for (const n of names)
        if (n.home !== entry.package && !publicOfHome.has(`${n.home} ${n.name}`))
          strays.push(`${entry.importPath}: ${n.name} (home ${n.home})`);
    }
    expect(strays).toEqual([]);
    const deprecated = exported.filter(({ entry }) => entry.reexports !== undefined);
    expect(deprecated.map(({ entry }) => `${entry.importPath} -> ${entry.reexports}`)).toEqual([
      '@omcp/instrumentation-mcp/tool-failure -> @omcp/tool-failure',
      '@omcp/instrumentation-mcp/proxy -> @omcp/mcp-failure-proxy',
    ]);
  });

  it('of the internal entries are used by the workspace, not offered as stable', () => {
    const internal = exported.filter(({ entry }) => isInternal(entry.subpath));
    expect(internal.map(({ entry }) => entry.importPath)).toEqual([
      '@omcp/instrumentation-mcp/internal',
      '@omcp/instrumentation-mcp/executable',
      '@omcp/tool-failure',
      '@omcp/mcp-failure-proxy',
    ]);
    const publicNames = new Set(
      exported
        .filter(({ entry }) => !isInternal(entry.subpath))
        .flatMap(({ entry, names }) => names.map((n) => `${entry.package} ${n.name}`)),
    );
    const both = internal.flatMap(({ entry, names }) =>
      names.filter((n) => publicNames.has(`${entry.package} ${n.name}`)).map((n) => n.name),
    );
    expect(both, 'a name is either public or internal in its package').toEqual([]);
  });
});

/** Whether an entry of `exports` is an internal one (`./internal`, `./internal/...`). */
function isInternal(subpath: string): boolean {
  return subpath === './internal' || subpath.startsWith('./internal/');
}
