import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  conformanceBin,
  ensureGateTools,
  node22,
  run,
  startExampleServer,
  type RunningServer,
} from './gate-tools.js';

/**
 * Scenarios of the official suite that the example server implements (initialize, ping,
 * logging, and every tools scenario that needs no client capability). The rest of the active
 * suite (resources, prompts, sampling, elicitation, completion, DNS rebinding) is out of the
 * example's scope; for those the gate only asks that instrumentation changes nothing.
 */
const SUPPORTED = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
];

interface Check {
  id: string;
  status: string;
  details?: { result?: { _meta?: Record<string, unknown> } };
}

/** Scenario name -> its checks, from the suite's per-scenario `checks.json` files. */
type Outcomes = Map<string, Check[]>;

function readOutcomes(dir: string): Outcomes {
  const outcomes: Outcomes = new Map();
  for (const entry of readdirSync(dir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (m?.[1] === undefined) continue;
    const checks = JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[];
    outcomes.set(m[1], checks);
  }
  return outcomes;
}

/** Per scenario, the sorted `id=status` of its checks: what must match between the runs. */
function summary(outcomes: Outcomes): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [scenario, checks] of [...outcomes].sort(([a], [b]) => a.localeCompare(b))) {
    out[scenario] = checks.map((c) => `${c.id}=${c.status}`).sort();
  }
  return out;
}

const passed = (checks: Check[] | undefined): boolean =>
  checks !== undefined &&
  checks.length > 0 &&
  checks.every((c) => c.status === 'SUCCESS' || c.status === 'INFO' || c.status === 'WARNING');

async function runSuite(server: RunningServer, outDir: string): Promise<Outcomes> {
  const r = await run(node22, [conformanceBin, 'server', '--url', server.url, '-o', outDir], {
    timeoutMs: 150_000,
  });
  // Exit code 1 means some scenario failed, which the out-of-scope ones do; the outcomes decide.
  expect(r.signal, `conformance suite killed: ${r.stderr.slice(-500)}`).toBeNull();
  return readOutcomes(outDir);
}

describe('official MCP conformance suite (server mode, Streamable HTTP)', () => {
  let receiver: OtlpReceiver;
  let work: string;
  beforeAll(async () => {
    await ensureGateTools();
    receiver = await startOtlpReceiver();
    work = mkdtempSync(join(tmpdir(), 'omcp-conformance-'));
  }, 300_000);
  afterAll(async () => {
    await receiver?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('the example server passes the same scenarios plain and instrumented with zero code', async () => {
    const plainServer = await startExampleServer([], {});
    let plain: Outcomes;
    try {
      plain = await runSuite(plainServer, join(work, 'plain'));
    } finally {
      await plainServer.stop();
    }

    const instrumentedServer = await startExampleServer(
      ['--import', '@omcp/instrumentation-mcp/register'],
      {
        OTEL_SERVICE_NAME: 'conformance-example',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
      },
    );
    let instrumented: Outcomes;
    try {
      instrumented = await runSuite(instrumentedServer, join(work, 'instrumented'));
      // The instrumentation was really on: server spans arrived for the suite's tool calls.
      await receiver.waitFor(
        (spans) =>
          spans.some(
            (s) =>
              s.serviceName === 'conformance-example' &&
              s.kind === 2 &&
              s.name === 'tools/call test_error_handling',
          ),
        10_000,
      );
    } finally {
      await instrumentedServer.stop();
    }

    for (const scenario of SUPPORTED) {
      expect(passed(plain.get(scenario)), `plain run: ${scenario}`).toBe(true);
      expect(passed(instrumented.get(scenario)), `instrumented run: ${scenario}`).toBe(true);
    }
    expect(summary(instrumented)).toEqual(summary(plain));

    // Same verdict, different result: instrumented, the error result carries a classified failure.
    const plainError = plain.get('tools-call-error')?.[0]?.details?.result;
    const instrumentedError = instrumented.get('tools-call-error')?.[0]?.details?.result;
    expect(plainError?._meta).toBeUndefined();
    expect(instrumentedError?._meta?.['io.modelcontextprotocol/toolFailure']).toMatchObject({
      class: 'reliability',
      code: 'internal_error',
      correlationId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  }, 300_000);
});
