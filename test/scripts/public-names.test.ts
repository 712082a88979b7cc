// Every public name of the workspace has exactly one home package: the package whose `src/` holds
// its declaration. Another package may hand the name on only from its home's public entry, never
// define it again. The names are those of typedoc's model of the entries in typedoc.json (the API
// reference's), read as its JSON output.
import { join } from 'node:path';
import { Application, normalizePath, type JSONOutput } from 'typedoc';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, homeOf, manifestOf, workspacePackages } from '../../scripts/workspace.mjs';

type Reflection = JSONOutput.DeclarationReflection | JSONOutput.ReferenceReflection;

/** One name an entry exports: the entry, its package, and the declaration the name stands for. */
interface Export {
  entry: string;
  package: string;
  name: string;
  declaration: JSONOutput.DeclarationReflection | undefined;
  /** The package whose sources hold the declaration. */
  home: string | undefined;
}

const packages = workspacePackages();

/** The package an entry (typedoc's module, named by its import path) belongs to. */
function packageOf(entry: string): string | undefined {
  return packages
    .map((p) => p.name)
    .filter((name) => entry === name || entry.startsWith(`${name}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/** Adds `value` to the set `map` holds at `key`. */
function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  (map.get(key) ?? map.set(key, new Set()).get(key)!).add(value);
}

/** The summary of a declaration's doc comment, or of its first signature's (a function's). */
function summaryOf(d: JSONOutput.DeclarationReflection): string {
  const comment = d.comment ?? d.signatures?.[0]?.comment ?? d.getSignature?.comment;
  return (comment?.summary ?? [])
    .map((part) => part.text)
    .join('')
    .trim();
}

let exported: Export[] = [];

beforeAll(async () => {
  const app = await Application.bootstrapWithPlugins({
    options: join(ROOT, 'typedoc.json'),
    disableSources: false,
    disableGit: true,
    sourceLinkTemplate: '{path}',
    displayBasePath: ROOT,
    logLevel: 'Error',
  });
  const project = await app.convert();
  if (project === undefined)
    throw new Error('typedoc could not convert the entries of typedoc.json');
  const json = app.serializer.projectToObject(project, normalizePath(ROOT));
  const byId = new Map<number, Reflection>();
  const visit = (r: Reflection): void => {
    byId.set(r.id, r);
    if ('children' in r) for (const child of r.children ?? []) visit(child);
  };
  for (const module of json.children ?? []) visit(module);
  exported = (json.children ?? []).flatMap((module) =>
    (module.children ?? []).map((child) => {
      const target = 'target' in child ? byId.get(child.target) : child;
      const declaration = target !== undefined && !('target' in target) ? target : undefined;
      const file = declaration?.sources?.[0]?.fileName;
      return {
        entry: module.name,
        package: packageOf(module.name) ?? `(no package: ${module.name})`,
        name: child.name,
        declaration,
        home: file === undefined ? undefined : homeOf(packages, file)?.name,
      };
    }),
  );
}, 120_000);

describe('public names', () => {
  it('each has one home package, where its declaration is, and no name is defined in two', () => {
    expect(exported.length).toBeGreaterThan(100);
    const homeless = exported
      .filter((e) => e.home === undefined)
      .map(
        (e) => `${e.entry}: ${e.name} (${e.declaration?.sources?.[0]?.fileName ?? 'no source'})`,
      );
    expect(homeless, 'names declared outside every package src/').toEqual([]);
    const homes = new Map<string, Set<string>>();
    for (const { name, home } of exported) addTo(homes, name, home ?? '');
    const twice = [...homes]
      .filter(([, set]) => set.size > 1)
      .map(([n, set]) => `${n}: ${[...set]}`);
    expect(twice, 'names defined in two packages').toEqual([]);
    // The kit (@omcp/mcp-failures) has executables and vectors, and no names.
    expect([...new Set(exported.map((e) => e.home))].sort()).toEqual([
      '@omcp/instrumentation-mcp',
      '@omcp/mcp-failure-proxy',
      '@omcp/tool-failure',
    ]);
  });

  it('reach another package only from a public entry of their home', () => {
    const publicIn = new Map<number, Set<string>>();
    for (const { declaration, package: pkg } of exported)
      if (declaration !== undefined) addTo(publicIn, declaration.id, pkg);
    const strays = exported
      .filter((e) => e.home !== e.package && e.declaration !== undefined)
      .filter((e) => !publicIn.get(e.declaration!.id)?.has(e.home!))
      .map((e) => `${e.entry}: ${e.name} (home ${e.home}, which exports it from no entry)`);
    expect(strays).toEqual([]);
    // Names do cross packages (the instrumentation's entries hand on the data model's types).
    expect(exported.some((e) => e.home !== e.package)).toBe(true);
  });

  it('have no `internal` entry in any package', () => {
    const internal = packages.flatMap(({ dir, name }) =>
      Object.keys((manifestOf(join(ROOT, dir)).exports ?? {}) as Record<string, unknown>)
        .filter((subpath) => /(^|\/)internal(\/|$)/.test(subpath))
        .map((subpath) => `${name} ${subpath}`),
    );
    expect(internal).toEqual([]);
    expect(exported.filter((e) => /\/internal(\/|$)/.test(e.entry))).toEqual([]);
  });

  it('each have a doc comment with a summary', () => {
    const seen = new Set<number>();
    const undocumented = exported.flatMap(({ entry, name, declaration }) => {
      if (declaration === undefined || seen.has(declaration.id)) return [];
      seen.add(declaration.id);
      return summaryOf(declaration) === '' ? [`${entry}: ${name}`] : [];
    });
    expect(undocumented).toEqual([]);
  });
});
