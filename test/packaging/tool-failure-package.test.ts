/**
 * `@omcp/tool-failure` (packages/tool-failure) as a server author or another SDK gets it: its
 * packed tarball installed for real into a fresh project on each Node.js line, with nothing else.
 * No OpenTelemetry package is installed (it has no dependency), and the data model builds, reads
 * and classifies failures from ES modules and from CommonJS; its schema is importable.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../observability/helpers.js';
import { runtimes } from '../helpers/runtimes.js';
import { node, npmInstall, pack, type Packed } from './install.js';
import * as dataModel from '../../packages/tool-failure/src/index.js';

let packed: Packed;
beforeAll(() => {
  if (!existsSync(join(ROOT, 'packages/tool-failure/dist/esm/index.js')))
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
    await npmInstall(runtime, project, packed.install);
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
      join(ROOT, 'packages/tool-failure/dist/esm/index.js')
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
