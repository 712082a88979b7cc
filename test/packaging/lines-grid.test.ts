/**
 * Whichever OpenTelemetry JS line the application has, on every Node.js line that line runs on:
 * fresh projects (test/packaging/cells.ts) where that Node's npm, or pnpm 10, installs the
 * application's stack and the packed tarball, together or after. In each, manual mode exports the
 * client and the server span in the failure object's `correlationId` trace, the register entry
 * starts and exports the server span, and the tree has nothing invalid. A tree that mixes the lines
 * on purpose gets one line naming the mismatch and its fix, and the application still runs.
 *
 * `npm test` runs the design card's stack on every Node.js line and the 3.x line on 22, 24 and 26;
 * `node scripts/lines-grid.mjs` runs every cell (both orders, pnpm, sdk-node 2.x on every line).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { failingCallCommonJs, failingCallModule } from './apps.js';
import { cellName, installCells, npmLsProblems, type Cell, type CellProject } from './cells.js';
import { NAME, node, pack } from './install.js';

const FULL = process.env.OMCP_LINES_GRID === 'full';
const NODES_2X = [20, 22, 24, 26] as const;
const NODES_3X = [22, 24, 26] as const;

/** The cells `npm test` runs; the full grid adds the rest; `OMCP_LINES_CELLS` (a pattern) picks some. */
const ALL: Cell[] = [
  ...NODES_2X.map((node): Cell => ({ node, stack: 'card', pm: 'npm', order: 'together' })),
  ...NODES_3X.map((node): Cell => ({ node, stack: 'sdk-node 3.x', pm: 'npm', order: 'after' })),
  { node: 24, stack: 'mixed', pm: 'npm', order: 'after' },
  ...(FULL
    ? [
        ...NODES_2X.map((node): Cell => ({ node, stack: 'card', pm: 'npm', order: 'after' })),
        ...NODES_3X.map((node): Cell => ({
          node,
          stack: 'sdk-node 3.x',
          pm: 'npm',
          order: 'together',
        })),
        ...NODES_2X.map((node): Cell => ({
          node,
          stack: 'sdk-node 2.x',
          pm: 'npm',
          order: 'after',
        })),
        ...(['together', 'after'] as const).flatMap((order) => [
          ...NODES_2X.map((node): Cell => ({ node, stack: 'card', pm: 'pnpm', order })),
          ...NODES_3X.map((node): Cell => ({ node, stack: 'sdk-node 3.x', pm: 'pnpm', order })),
        ]),
      ]
    : []),
];
const ONLY = process.env.OMCP_LINES_CELLS;
const CELLS = ONLY === undefined ? ALL : ALL.filter((c) => new RegExp(ONLY).test(cellName(c)));

/** The call, with the client and the server instrumented by hand before they connect. */
const MANUAL_CALL = `
const server = instrumentServer(new McpServer({ name: 's', version: '1' }));
server.registerTool('boom', {}, async () => { throw new Error('boom'); });
const [a, b] = InMemoryTransport.createLinkedPair();
await server.connect(b);
const client = instrumentClient(new Client({ name: 'c', version: '1' }));
await client.connect(a);
const r = await client.callTool({ name: 'boom', arguments: {} });
console.log('correlationId=' + r._meta['io.modelcontextprotocol/toolFailure'].correlationId);
await client.close();
`;
const MCP_IMPORTS = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { instrumentClient, instrumentServer } from '${NAME}';
`;

const APPS = {
  // The design card: a NodeTracerProvider with the OTLP/HTTP exporter, objects instrumented by hand.
  'grid-manual-card.mjs': `import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
${MCP_IMPORTS}
const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();
${MANUAL_CALL}
await provider.shutdown();
`,
  // sdk-node started with no instrumentations, objects instrumented by hand.
  'grid-manual-sdk.mjs': `import { NodeSDK } from '@opentelemetry/sdk-node';
${MCP_IMPORTS}
const sdk = new NodeSDK({});
sdk.start();
${MANUAL_CALL}
await sdk.shutdown();
`,
  'grid-app.mjs': failingCallModule('boom', 'boom'),
  'grid-app.cjs': failingCallCommonJs('boom', 'boom'),
};

/** What users set: where to export; the protocol is left to the exporter the application has. */
const EXPORT = {
  OTEL_SERVICE_NAME: 'lines-grid',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
};

let projects: Map<Cell, CellProject>;
let receiver: OtlpReceiver | undefined;

beforeAll(async () => {
  projects = await installCells(CELLS, pack());
  for (const project of projects.values())
    for (const [file, text] of Object.entries(APPS)) writeFileSync(join(project.dir, file), text);
}, 1_800_000);

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** Runs `args` in the cell's project, exporting to a fresh receiver; the correlationId printed. */
async function runExporting(
  project: CellProject,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ id: string; stderr: string; receiver: OtlpReceiver }> {
  receiver = await startOtlpReceiver();
  const result = await node(project.runtime, project.dir, args, {
    ...EXPORT,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    ...env,
  });
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  const id = /correlationId=([0-9a-f]{32})/.exec(result.stdout)?.[1];
  expect(id, `${result.stdout}\n${result.stderr}`).toBeDefined();
  return { id: id!, stderr: result.stderr, receiver };
}

describe.each(
  CELLS.filter((c) => c.stack !== 'mixed').map((cell) => ({ cell, name: cellName(cell) })),
)('$name', ({ cell }) => {
  const project = (): CellProject => projects.get(cell)!;

  it('has nothing invalid in its tree', async () => {
    if (cell.pm === 'npm') expect(await npmLsProblems(project())).toEqual([]);
    else expect(project().log).not.toMatch(/unmet peer|Issues with peer dependencies/i);
  });

  it('manual mode exports the client and the server span in the correlationId trace', async () => {
    const app = cell.stack === 'card' ? 'grid-manual-card.mjs' : 'grid-manual-sdk.mjs';
    const {
      id,
      stderr,
      receiver: r,
    } = await runExporting(project(), [app], {
      // sdk-node builds its exporter from this; the card's app has the JSON one.
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(stderr).not.toMatch(/SyntaxError|not found|Error/);
    await r.waitFor((spans) => spans.filter((s) => s.name === 'tools/call boom').length >= 2);
    const calls = r.spans.filter((s) => s.name === 'tools/call boom');
    expect(calls.map((s) => s.kind).sort()).toEqual([2, 3]);
    for (const span of calls) expect(span.traceId).toBe(id);
  });

  it.each([
    ['--import', 'grid-app.mjs'],
    ['--require', 'grid-app.cjs'],
  ])('the register entry (%s) starts and exports the server span', async (flag, app) => {
    const env = cell.stack === 'card' ? {} : { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    const {
      id,
      stderr,
      receiver: r,
    } = await runExporting(project(), [flag, `${NAME}/register`, app], env);
    const line = cell.stack === 'sdk-node 3.x' ? '3.x' : '2.x';
    expect(stderr).toContain(`${NAME}/register: OpenTelemetry JS ${line} started`);
    await r.waitFor((spans) => spans.some((s) => s.name === 'tools/call boom' && s.kind === 2));
    const server = r.spans.find((s) => s.name === 'tools/call boom' && s.kind === 2)!;
    expect(server.traceId).toBe(id);
  });
});

describe.each(
  CELLS.filter((c) => c.stack === 'mixed').map((cell) => ({ cell, name: cellName(cell) })),
)('$name (api 1.9.1 under sdk-node 0.301.0, pinned by the user)', ({ cell }) => {
  it.each([
    ['--import', 'grid-app.mjs'],
    ['--require', 'grid-app.cjs'],
  ])(
    'the register entry (%s) says the mismatch and its fix in one line; the app runs',
    async (flag, app) => {
      const project = projects.get(cell)!;
      const result = await node(project.runtime, project.dir, [flag, `${NAME}/register`, app], {
        ...EXPORT,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/',
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/correlationId=[0-9a-f]{32}/);
      expect(result.stderr).toBe(
        `${NAME}/register: telemetry not started: @opentelemetry/sdk-node 0.301.0 (OpenTelemetry JS 3.x) needs @opentelemetry/api 1.10, found 1.9.1 (2.x); to run the 3.x line: npm install @opentelemetry/api@1.10; to stay on 2.x: npm install @opentelemetry/sdk-node@0.223\n`,
      );
    },
  );

  it('manual mode imports and instruments without a crash', async () => {
    const project = projects.get(cell)!;
    writeFileSync(join(project.dir, 'grid-manual-plain.mjs'), `${MCP_IMPORTS}\n${MANUAL_CALL}`);
    const result = await node(project.runtime, project.dir, ['grid-manual-plain.mjs'], EXPORT);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/correlationId=[0-9a-f]{32}/);
    expect(result.stderr).toBe('');
  });
});
