import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODES, MODULE_SYSTEMS, ROOT, listFixtures, matrixCases } from './cases.js';

interface Row {
  packages: string[];
  version: string;
  moduleSystems: string[];
  modes: string[];
  apis: string;
  transports: string[];
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

function section(): string {
  const start = readme.indexOf('\n## Supported versions\n');
  if (start < 0) return '';
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

function list(cell: string): string[] {
  return cell
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
}

function rows(): Row[] {
  const out: Row[] = [];
  for (const line of section().split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | packages | version | module systems | modes | server APIs | transports |
    if (cells.length !== 8 || !/^\d+\.\d+\.\d+$/.test(cells[2] ?? '')) continue;
    out.push({
      packages: [...(cells[1] ?? '').matchAll(/`(@modelcontextprotocol\/[a-z-]+)`/g)]
        .map((m) => m[1] ?? '')
        .sort(),
      version: cells[2] ?? '',
      moduleSystems: list(cells[3] ?? ''),
      modes: list(cells[4] ?? ''),
      apis: cells[5] ?? '',
      transports: list(cells[6] ?? ''),
    });
  }
  return out;
}

describe('README supported-versions table', () => {
  const table = rows();
  const fixtures = listFixtures();

  it('comes right after Install', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings.indexOf('Supported versions')).toBe(headings.indexOf('Install') + 1);
  });

  it('lists exactly the fixture versions of the matrix, with their packages', () => {
    expect(table.map((r) => `${r.packages.join(' + ')}@${r.version}`)).toEqual(
      fixtures.map((f) => `${f.packages.join(' + ')}@${f.version}`),
    );
  });

  it('lists exactly the module systems, modes, server APIs and transports each fixture runs', () => {
    for (const fixture of fixtures) {
      const row = table.find((r) => r.version === fixture.version);
      const cases = matrixCases(fixture);
      expect(row?.moduleSystems, fixture.name).toEqual(MODULE_SYSTEMS.map((m) => m));
      expect(new Set(cases.map((c) => c.moduleSystem))).toEqual(new Set(MODULE_SYSTEMS));
      expect(row?.modes, fixture.name).toEqual(MODES.map((m) => m));
      expect(new Set(cases.map((c) => c.mode))).toEqual(new Set(MODES));
      expect(row?.apis, fixture.name).toMatch(/`McpServer`/);
      expect(row?.apis, fixture.name).toMatch(/low-level `Server`/);
      const transports = [...new Set(cases.map((c) => c.transport))].map((t) =>
        t === 'inmemory' ? 'in-memory' : t,
      );
      expect(row?.transports, fixture.name).toEqual(transports);
    }
  });

  it('names the McpServer registration API each version has', () => {
    for (const fixture of fixtures) {
      const row = table.find((r) => r.version === fixture.version);
      // McpServer.registerTool() arrives in 1.11; 1.10.x only has tool().
      const [major, minor] = fixture.version.split('.').map(Number);
      const registerTool = (major ?? 0) > 1 || (minor ?? 0) >= 11;
      expect(row?.apis, fixture.name).toContain(registerTool ? '`registerTool()`' : '`tool()`');
    }
  });

  it('states the oldest supported 1.x, which is the oldest 1.x fixture', () => {
    const oldest = fixtures.find((f) => f.line === 1)?.version;
    expect(section()).toContain(`The oldest supported SDK 1.x is **${oldest ?? '?'}**.`);
  });
});
