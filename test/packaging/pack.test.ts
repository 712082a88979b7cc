/**
 * The package as npm publishes it: `npm pack`, unpacked into a fresh project's node_modules, and
 * used from there the ways the README says: ES module import, CommonJS require, the zero-code
 * entry with `--import` and `--require`, the CLI, the JSON Schema, and the TypeScript types under
 * `nodenext` resolution. What the repository's own tests cannot see: a file missing from
 * `files`, an `exports` target that is not shipped, a source map pointing at nothing.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, run, tempDir } from '../observability/helpers.js';

const NAME = '@omcp/instrumentation-mcp';
let project: string;
let packed: string[];

let tarball: string;

/** Packs the package once; the file list is what npm would publish. */
function pack(): void {
  const dir = tempDir('omcp-pack');
  // --ignore-scripts: the prepack build would replace dist/ under the tests running beside this.
  const out = execFileSync(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  const [info] = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packed = info!.files.map((f) => f.path);
  tarball = join(dir, info!.filename);
}

/**
 * A fresh project with the tarball installed and the repository's dependencies linked, as npm
 * would have put them; `omit` leaves packages out (as `npm install --omit=optional` does).
 */
function newProject(omit: readonly string[] = []): string {
  const dir = tempDir('omcp-consumer');
  const modules = join(dir, 'node_modules');
  const target = join(modules, NAME);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  const from = join(ROOT, 'node_modules');
  const link = (name: string): void => {
    if (!omit.includes(name) && !existsSync(join(modules, name)))
      symlinkSync(realpathSync(join(from, name)), join(modules, name), 'dir');
  };
  for (const entry of readdirSync(from)) {
    if (entry.startsWith('.')) continue;
    if (!entry.startsWith('@')) link(entry);
    else {
      mkdirSync(join(modules, entry), { recursive: true });
      for (const pkg of readdirSync(join(from, entry))) link(`${entry}/${pkg}`);
    }
  }
  writeFileSync(join(dir, 'package.json'), '{ "name": "consumer", "private": true }\n');
  return dir;
}

function setUpProject(): void {
  pack();
  project = newProject();
}

/** Runs node in a project; fails the test on a non-zero exit, with what it printed. */
async function node(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd: string = project,
): Promise<{ stdout: string; stderr: string }> {
  const result = await run(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  expect(result.code, `${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

const USE = `
  const result = toolFailure({ class: 'reliability', code: 'upstream_unavailable', retryable: true });
  const reading = readToolFailure(result);
  console.log(JSON.stringify({
    status: reading.status,
    code: reading.failure?.code,
    classified: classifyError(Object.assign(new Error('x'), { code: 'ECONNRESET' })).class,
    instrumentation: typeof McpInstrumentation,
  }));
`;
const EXPECTED = {
  status: 'valid',
  code: 'upstream_unavailable',
  classified: 'reliability',
  instrumentation: 'function',
};

/** An in-memory call to a tool that throws; prints the failure's correlationId. */
const CALL = (imports: string) => `
  ${imports}
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('t', {}, async () => { throw new Error('boom'); });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(a);
  const r = await client.callTool({ name: 't', arguments: {} });
  console.log('correlationId=' + r._meta['io.modelcontextprotocol/toolFailure'].correlationId);
  await client.close();
`;
const ZERO_CODE_ENV = {
  OTEL_TRACES_EXPORTER: 'console',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_SERVICE_NAME: 'pack-test',
};

describe('the packed package, installed in a fresh project', () => {
  beforeAll(setUpProject, 120_000);

  it('ships every file its manifest points at, the sources its maps name, and no tests', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const targets = new Set<string>([manifest.main, manifest.types]);
    const walk = (v: unknown): void => {
      if (typeof v === 'string') targets.add(v);
      else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(manifest.exports);
    walk(manifest.bin);
    for (const t of targets) expect(packed, t).toContain(t.replace(/^\.\//, ''));
    expect(packed).toContain('README.md');
    expect(packed.filter((p) => /^(test|bench|demo|scripts|\.ci)\//.test(p))).toEqual([]);
    // Every source a shipped source map names is shipped too.
    for (const map of packed.filter((p) => p.endsWith('.js.map'))) {
      const { sources } = JSON.parse(
        readFileSync(join(project, 'node_modules', NAME, map), 'utf8'),
      );
      for (const source of sources as string[]) {
        const path = join(map, '..', source);
        expect(packed, `${map} -> ${source}`).toContain(path);
      }
    }
  });

  it('imports as an ES module and requires as CommonJS, with the same API', async () => {
    writeFileSync(
      join(project, 'use.mjs'),
      `import { toolFailure, readToolFailure, classifyError, McpInstrumentation } from '${NAME}';\n${USE}`,
    );
    writeFileSync(
      join(project, 'use.cjs'),
      `const { toolFailure, readToolFailure, classifyError, McpInstrumentation } = require('${NAME}');\n${USE}`,
    );
    expect(JSON.parse((await node(['use.mjs'])).stdout)).toEqual(EXPECTED);
    expect(JSON.parse((await node(['use.cjs'])).stdout)).toEqual(EXPECTED);
  });

  it('instruments an app with zero code, through --import (ESM) and --require (CommonJS)', async () => {
    writeFileSync(
      join(project, 'app.mjs'),
      CALL(`import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
  import { Client } from '@modelcontextprotocol/sdk/client/index.js';
  import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';`),
    );
    writeFileSync(
      join(project, 'app.cjs'),
      `(async () => {${CALL(`const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');`)}})();`,
    );
    for (const [flag, app] of [
      ['--import', 'app.mjs'],
      ['--require', 'app.cjs'],
    ] as const) {
      const { stdout: out } = await node([flag, `${NAME}/register`, app], ZERO_CODE_ENV);
      const id = /correlationId=([0-9a-f]{32})/.exec(out)?.[1];
      expect(id, out).toBeDefined();
      // The console exporter printed the server span whose trace ID the client was given.
      expect(out).toContain(`traceId: '${id}'`);
      expect(out).toContain("name: 'tools/call t'");
    }
  });

  it('without its optional dependencies, the zero-code entry says so in one line and the app runs', async () => {
    const lean = newProject(['@opentelemetry/sdk-node']);
    writeFileSync(join(lean, 'app.mjs'), "console.log('app ran');\n");
    writeFileSync(join(lean, 'app.cjs'), "console.log('app ran');\n");
    for (const [flag, app] of [
      ['--import', 'app.mjs'],
      ['--require', 'app.cjs'],
    ] as const) {
      const { stdout, stderr } = await node([flag, `${NAME}/register`, app], ZERO_CODE_ENV, lean);
      expect(stdout.trim()).toBe('app ran');
      expect(stderr).toBe(
        '@omcp/instrumentation-mcp/register: telemetry not started: @opentelemetry/sdk-node is not installed (the zero-code entry needs the optional dependencies: npm install @opentelemetry/sdk-node)\n',
      );
    }
  });

  it('runs its CLI and resolves its JSON Schema', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    for (const bin of Object.values(manifest.bin as Record<string, string>)) {
      const file = join(project, 'node_modules', NAME, bin);
      expect(readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n'), bin).toBe(true);
      expect((await node([file, '--help'])).stdout, bin).toMatch(/usage/i);
    }
    writeFileSync(
      join(project, 'schema.cjs'),
      `console.log(require('${NAME}/schema/tool-failure.schema.json').title);`,
    );
    expect((await node(['schema.cjs'])).stdout.trim().length).toBeGreaterThan(0);
  });

  it('type-checks for ES module and CommonJS consumers under nodenext resolution', async () => {
    const code = `import { toolFailure, readToolFailure, type ToolFailure } from '${NAME}';
const r = toolFailure({ class: 'governance', code: 'auth_required' });
const reading = readToolFailure(r);
const f: ToolFailure | undefined = reading.status === 'valid' ? reading.failure : undefined;
export const c: string | undefined = f?.class;
`;
    writeFileSync(join(project, 'check.mts'), code);
    writeFileSync(join(project, 'check.cts'), code);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['check.mts', 'check.cts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await node([tsc, '-p', 'tsconfig.json']);
  });
});
