import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AI_SDK_LABELS,
  HTTP_EXPECTED,
  HTTP_TRANSPORTS,
  MODES,
  MODULE_SYSTEMS,
  ROOT,
  TRANSPORT_LABELS,
  aiSdkCases,
  aiSdkFixture,
  listFixtures,
  matrixCases,
  platforms,
} from './cases.js';

interface Row {
  packages: string[];
  version: string;
  node: string;
  otel: string;
  moduleSystems: string[];
  modes: string[];
  apis: string;
  transports: string[];
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const doc = readFileSync(join(ROOT, 'docs', 'supported-versions.md'), 'utf8');

/** The text of `markdown` under `## {heading}`, up to the next `## ` heading ('' without one). */
function sectionOf(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The version matrix's tables and notes, in docs/supported-versions.md. */
const section = (): string => sectionOf(doc, 'The version matrix');

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
    // | packages | version | Node.js | OpenTelemetry JS | module systems | modes | server APIs | transports |
    if (cells.length !== 10 || !/^\d+\.\d+\.\d+$/.test(cells[2] ?? '')) continue;
    out.push({
      packages: [...(cells[1] ?? '').matchAll(/`(@modelcontextprotocol\/[a-z-]+)`/g)]
        .map((m) => m[1] ?? '')
        .sort(),
      version: cells[2] ?? '',
      node: cells[3] ?? '',
      otel: cells[4] ?? '',
      moduleSystems: list(cells[5] ?? ''),
      modes: list(cells[6] ?? ''),
      apis: cells[7] ?? '',
      transports: list(cells[8] ?? ''),
    });
  }
  return out;
}

/** The section's text with each run of whitespace as one space (prose wraps anywhere). */
function prose(): string {
  return section().replace(/\s+/g, ' ');
}

describe('the version matrix table of docs/supported-versions.md', () => {
  const table = rows();
  const fixtures = listFixtures();
  const onPlatforms = platforms();
  const rowOf = (version: string, node: number): Row | undefined =>
    table.find((r) => r.version === version && r.node === String(node));

  it("has the README's Supported versions right after Install, leading to it", () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings.indexOf('Supported versions')).toBe(headings.indexOf('Install') + 1);
    expect(sectionOf(readme, 'Supported versions')).toContain(
      '(docs/supported-versions.md#the-version-matrix)',
    );
  });

  it('lists exactly the fixture versions of the matrix on each platform, with their packages', () => {
    expect(
      table.map((r) => `${r.packages.join(' + ')}@${r.version} on ${r.node} ${r.otel}`),
    ).toEqual(
      fixtures.flatMap((f) =>
        onPlatforms.map(
          (p) => `${f.packages.join(' + ')}@${f.version} on ${p.node} ${p.line.name}`,
        ),
      ),
    );
  });

  it('lists exactly the module systems, modes, server APIs and transports each row runs', () => {
    for (const fixture of fixtures) {
      for (const platform of onPlatforms) {
        const row = rowOf(fixture.version, platform.node);
        const name = `${fixture.name} on Node.js ${platform.node}`;
        const cases = matrixCases(fixture, platform);
        expect(row?.moduleSystems, name).toEqual(MODULE_SYSTEMS.map((m) => m));
        expect(new Set(cases.map((c) => c.moduleSystem))).toEqual(new Set(MODULE_SYSTEMS));
        expect(row?.modes, name).toEqual(MODES.map((m) => m));
        expect(new Set(cases.map((c) => c.mode))).toEqual(new Set(MODES));
        expect(row?.apis, name).toMatch(/`McpServer`/);
        expect(row?.apis, name).toMatch(/low-level `Server`/);
        expect(new Set(cases.map((c) => c.api))).toEqual(new Set(['McpServer', 'Server']));
        const transports = [...new Set(cases.map((c) => c.transport))].map((t) =>
          TRANSPORT_LABELS[t].toLowerCase(),
        );
        expect(row?.transports, name).toEqual(transports);
      }
    }
  });

  it('says which OpenTelemetry JS line runs on which Node.js, and what each line pins', () => {
    const text = prose();
    for (const { node, line } of onPlatforms) {
      expect(text).toContain(`on Node.js ${node} with OpenTelemetry JS ${line.name}`);
      const item = text.split(' - ').find((i) => i.startsWith(`**OpenTelemetry JS ${line.name}**`));
      for (const [name, version] of Object.entries(line.pinned))
        expect(item ?? '', line.name).toContain(`\`${name}\` ${version}`);
    }
  });

  it('names the McpServer registration API each version has', () => {
    for (const fixture of fixtures) {
      // McpServer.registerTool() arrives in 1.11; 1.10.x only has tool().
      const [major, minor] = fixture.version.split('.').map(Number);
      const registerTool = (major ?? 0) > 1 || (minor ?? 0) >= 11;
      for (const { node } of onPlatforms)
        expect(rowOf(fixture.version, node)?.apis, fixture.name).toContain(
          registerTool ? '`registerTool()`' : '`tool()`',
        );
    }
  });

  it('names the HTTP modes where the matrix checks the declaration of the extension', () => {
    const declaring = HTTP_TRANSPORTS.filter((t) => HTTP_EXPECTED[t].declared).map(
      (t) => TRANSPORT_LABELS[t],
    );
    expect(declaring.length).toBeGreaterThan(0);
    expect(prose()).toContain(
      `the server declares it in the 2026-07-28 modes (${declaring.join(', ')})`,
    );
  });

  it('states the oldest supported 1.x, which is the oldest 1.x fixture, and so does the README', () => {
    const oldest = fixtures.find((f) => f.line === 1)?.version;
    expect(section()).toContain(`The oldest supported SDK 1.x is **${oldest ?? '?'}**.`);
    expect(sectionOf(readme, 'Supported versions')).toContain(
      `The oldest supported SDK 1.x is **${oldest ?? '?'}**.`,
    );
  });
});

describe('the AI SDK client table of docs/supported-versions.md', () => {
  const fixture = aiSdkFixture();
  // | client package | version | Node.js | OpenTelemetry JS | module systems | modes | transports |
  const table = section()
    .split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .filter((cells) => cells.length === 9 && (cells[1] ?? '').includes('`@ai-sdk/mcp`'));

  it('has one row per platform of the matrix, at the fixture versions', () => {
    expect(table.map((c) => `${c[2]} on ${c[3]} ${c[4]}`)).toEqual(
      platforms().map((p) => `${fixture.version} on ${p.node} ${p.line.name}`),
    );
    for (const cells of table) expect(cells[1]).toContain(`\`ai\` ${fixture.ai}`);
  });

  it('lists exactly the module systems, modes and transports the row runs', () => {
    for (const platform of platforms()) {
      const cases = aiSdkCases(platform);
      const row = table.find((c) => c[3] === String(platform.node));
      const labels = (values: string[]): string[] =>
        [...new Set(values)].map((v) => v.toLowerCase());
      expect(list(row?.[5] ?? '')).toEqual(labels(cases.map((c) => c.moduleSystem)));
      expect(list(row?.[6] ?? '')).toEqual(labels(cases.map((c) => AI_SDK_LABELS[c.mode])));
      expect(list(row?.[7] ?? '').sort()).toEqual(
        labels(cases.map((c) => AI_SDK_LABELS[c.transport])).sort(),
      );
    }
  });
});
