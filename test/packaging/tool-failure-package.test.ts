/**
 * `@omcp/tool-failure` (packages/tool-failure) as a server author or another SDK gets it: its
 * packed tarball installed for real into a fresh project on each Node.js line, with nothing else.
 * No OpenTelemetry package is installed (it has no dependency), and the data model builds, reads
 * and classifies failures from ES modules and from CommonJS; its schema is importable.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../observability/helpers.js';
import { runtimes } from '../helpers/runtimes.js';
import { copiesOf, node, npmInstall, pack, type Packed } from './install.js';
import * as dataModel from '../../src/tool-failure/index.js';

let packed: Packed;
beforeAll(() => {
  if (!existsSync(join(ROOT, 'packages/tool-failure/dist/esm/tool-failure/index.js')))
    throw new Error('packages/tool-failure is not built: run npm run build');
  packed = pack(join(ROOT, 'packages/tool-failure'));
}, 120_000);

/** What both module systems run: a failure built, read back, and a thrown error classified. */
const BODY = `
  const r = toolFailure({ class: 'governance', code: 'auth_required',
    agentGuidance: 'Ask the user to sign in again.' });
  const reading = readToolFailure(r);
  const thrown = classifyError(Object.assign(new Error('x'), { code: 'ECONNRESET' }));
  const err = new ToolFailureError({ class: 'reliability', code: 'upstream_unavailable', retryable: true });
  console.log(JSON.stringify({ status: reading.status, cls: reading.failure?.class,
    id: r._meta[TOOL_FAILURE_META_KEY].correlationId, thrown: thrown.class,
    isError: isToolFailureError(err), schema: schema.title }));`;
const NAMES =
  'toolFailure, readToolFailure, classifyError, ToolFailureError, isToolFailureError, TOOL_FAILURE_META_KEY';

describe.each(runtimes())('@omcp/tool-failure installed alone on Node.js $major', (runtime) => {
  let project: string;
  beforeAll(async () => {
    project = tempDir(`omcp-data-model-node${runtime.major}`);
    writeFileSync(join(project, 'package.json'), '{ "name": "server", "private": true }\n');
    await npmInstall(runtime, project, [packed.tarball]);
  }, 300_000);

  it('brings no other package, OpenTelemetry least of all', () => {
    const installed = readdirSync(join(project, 'node_modules')).filter((d) => !d.startsWith('.'));
    expect(installed).toEqual(['@omcp']);
    expect(readdirSync(join(project, 'node_modules/@omcp'))).toEqual(['tool-failure']);
  });

  it.each(['esm', 'cjs'] as const)(
    'builds, reads and classifies from %s',
    async (kind) => {
      const file = join(project, kind === 'esm' ? 'check.mjs' : 'check.cjs');
      writeFileSync(
        file,
        kind === 'esm'
          ? `import { ${NAMES} } from '@omcp/tool-failure';
           import schema from '@omcp/tool-failure/schema/tool-failure.schema.json' with { type: 'json' };
           ${BODY}`
          : `const { ${NAMES} } = require('@omcp/tool-failure');
           const schema = require('@omcp/tool-failure/schema/tool-failure.schema.json');
           ${BODY}`,
      );
      const result = await node(runtime, project, [file]);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({
        status: 'valid',
        cls: 'governance',
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        thrown: 'reliability',
        isError: true,
        schema: 'ToolFailure',
      });
    },
    60_000,
  );
});

describe('a failure thrown from @omcp/tool-failure inside an instrumented server', () => {
  it("is this package's ToolFailureError too: recognised and classified as it says", async () => {
    const copy = (await import(
      join(ROOT, 'packages/tool-failure/dist/esm/tool-failure/index.js')
    )) as typeof dataModel;
    const thrown = new copy.ToolFailureError({
      class: 'governance',
      code: 'permission_denied',
      agentGuidance: 'Ask for access.',
    });
    expect(thrown).not.toBeInstanceOf(dataModel.ToolFailureError);
    expect(dataModel.isToolFailureError(thrown)).toBe(true);
    expect(dataModel.classifyError(thrown)).toMatchObject({
      class: 'governance',
      code: 'permission_denied',
    });
  });
});

/**
 * The root package as users install it: its tarball carries `@omcp/tool-failure` bundled (the
 * version it depends on), and no compiled copy of the data model of its own, so its deprecated
 * `./tool-failure` subpath hands out the very objects of the data-model package.
 */
describe('the root package and @omcp/tool-failure: one copy of the data model', () => {
  let root: Packed;
  beforeAll(() => {
    root = pack();
  }, 120_000);

  it('depends on the data-model package by its version and bundles it, with no copy of its own', () => {
    const manifest = (dir: string): Record<string, unknown> =>
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const rootManifest = manifest(ROOT) as {
      dependencies: Record<string, string>;
      bundleDependencies: string[];
    };
    expect(rootManifest.dependencies['@omcp/tool-failure']).toBe(
      manifest(join(ROOT, 'packages/tool-failure')).version,
    );
    expect(rootManifest.bundleDependencies).toEqual(['@omcp/tool-failure']);
    expect(root.files).toContain('node_modules/@omcp/tool-failure/package.json');
    expect(root.files).toContain('node_modules/@omcp/tool-failure/dist/cjs/tool-failure/index.js');
    const ownCopies = root.files.filter((f) => /^dist\/(esm|cjs)\/tool-failure\//.test(f));
    expect(ownCopies).toEqual([]);
  });

  describe.each(runtimes())('installed on Node.js $major', (runtime) => {
    let project: string;
    beforeAll(async () => {
      project = tempDir(`omcp-one-model-node${runtime.major}`);
      writeFileSync(join(project, 'package.json'), '{ "name": "app", "private": true }\n');
      await npmInstall(runtime, project, [root.tarball, '@opentelemetry/api@1.9.1']);
    }, 300_000);

    it('holds one @omcp/tool-failure, inside the root package', () => {
      const copies = copiesOf(project, '@omcp/tool-failure');
      expect(copies).toEqual([
        {
          version: (
            JSON.parse(readFileSync(join(ROOT, 'packages/tool-failure/package.json'), 'utf8')) as {
              version: string;
            }
          ).version,
          path: join(
            project,
            'node_modules/@omcp/instrumentation-mcp/node_modules/@omcp/tool-failure',
          ),
        },
      ]);
    });

    it.each(['esm', 'cjs'] as const)(
      'gives from %s the same objects through the deprecated subpath as from the package',
      async (kind) => {
        const file = join(project, kind === 'esm' ? 'same.mjs' : 'same.cjs');
        const compare = `
          const home = Object.keys(model).sort();
          const old = Object.keys(deprecated).sort();
          const differ = home.filter((k) => !Object.is(model[k], deprecated[k]));
          console.log(JSON.stringify({ home: home.length, same: JSON.stringify(home) === JSON.stringify(old), differ }));`;
        writeFileSync(
          file,
          kind === 'esm'
            ? `import { createRequire } from 'node:module';
               import * as deprecated from '@omcp/instrumentation-mcp/tool-failure';
               const inRoot = createRequire(createRequire(import.meta.url).resolve('@omcp/instrumentation-mcp'));
               const model = await import(inRoot.resolve('@omcp/tool-failure').replace('/cjs/', '/esm/'));
               ${compare}`
            : `const deprecated = require('@omcp/instrumentation-mcp/tool-failure');
               const model = require(require('node:module').createRequire(require.resolve('@omcp/instrumentation-mcp')).resolve('@omcp/tool-failure'));
               ${compare}`,
        );
        const result = await node(runtime, project, [file]);
        expect(result.stderr).toBe('');
        const out = JSON.parse(result.stdout) as { home: number; same: boolean; differ: string[] };
        expect(out.home).toBeGreaterThan(20);
        expect(out).toMatchObject({ same: true, differ: [] });
      },
      60_000,
    );
  });
});
