import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURES_DIR = join(ROOT, 'test', 'fixtures');

/** One fixture folder `test/fixtures/sdk-<version>/`: one MCP SDK version, installed on its own. */
export interface Fixture {
  /** Folder name, e.g. `sdk-1.10.2`. */
  name: string;
  dir: string;
  version: string;
  /** 1 for `@modelcontextprotocol/sdk`, 2 for the split `client` + `server` packages. */
  line: 1 | 2;
  /** The MCP packages the fixture installs, as `package.json` names them. */
  packages: string[];
}

export const MODULE_SYSTEMS = ['cjs', 'esm'] as const;
export const MODES = ['auto', 'register', 'manual'] as const;
export const SERVER_APIS = ['McpServer', 'Server'] as const;
export type ModuleSystem = (typeof MODULE_SYSTEMS)[number];
export type Mode = (typeof MODES)[number];
export type ServerApi = (typeof SERVER_APIS)[number];
export type Transport = 'inmemory' | 'stdio';

/** One child-process run of a fixture app. */
export interface MatrixCase {
  fixture: Fixture;
  moduleSystem: ModuleSystem;
  mode: Mode;
  api: ServerApi;
  transport: Transport;
  /** Test name. */
  label: string;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The fixture folders, oldest SDK first. */
export function listFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const name of readdirSync(FIXTURES_DIR)) {
    const m = /^sdk-(\d+\.\d+\.\d+)$/.exec(name);
    if (m?.[1] === undefined) continue;
    const dir = join(FIXTURES_DIR, name);
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const packages = Object.keys(json.dependencies ?? {}).filter((p) =>
      p.startsWith('@modelcontextprotocol/'),
    );
    out.push({
      name,
      dir,
      version: m[1],
      line: m[1].startsWith('1.') ? 1 : 2,
      packages: packages.sort(),
    });
  }
  return out.sort((a, b) => compareVersions(a.version, b.version));
}

/**
 * Every fixture under both module systems, the three modes and both server APIs over the
 * in-memory transport, plus one stdio run (two processes) per fixture and module system.
 */
export function matrixCases(fixture: Fixture): MatrixCase[] {
  const out: MatrixCase[] = [];
  const add = (
    moduleSystem: ModuleSystem,
    mode: Mode,
    api: ServerApi,
    transport: Transport,
  ): void => {
    out.push({
      fixture,
      moduleSystem,
      mode,
      api,
      transport,
      label: `${moduleSystem} ${mode} ${api} ${transport}`,
    });
  };
  for (const moduleSystem of MODULE_SYSTEMS) {
    for (const mode of MODES)
      for (const api of SERVER_APIS) add(moduleSystem, mode, api, 'inmemory');
    add(moduleSystem, 'register', 'McpServer', 'stdio');
  }
  return out;
}
