import fc from 'fast-check';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { setupTelemetry } from '../../../test/helpers/telemetry.js';
import { scriptedUpstream, throughProxy } from './harness.js';

setupTelemetry();

// Keys the SDK itself validates in a result's _meta, and the one key JSON.parse would turn
// into an own property but object spreads cannot copy: outside what a relay can promise.
const RESERVED = new Set(['__proto__', 'progressToken', 'io.modelcontextprotocol/related-task']);
const key = fc.string({ maxLength: 12 }).filter((k) => !RESERVED.has(k));
const odd = fc.jsonValue({ maxDepth: 3 });

/** Failure objects valid and invalid: right and wrong types, unknown keys, odd values, non-objects. */
const failureObject = fc.oneof(
  fc
    .record(
      {
        class: fc.oneof(fc.constantFrom('capability', 'reliability', 'governance'), odd),
        code: fc.oneof(
          fc.constantFrom('retryable_transient_error', 'policy_blocked', 'x-custom'),
          odd,
        ),
        retryable: fc.oneof(fc.boolean(), odd),
        retryNotBefore: fc.oneof(fc.integer({ min: 0, max: 2 ** 45 }), odd),
        correlationId: fc.oneof(fc.stringMatching(/^[0-9a-f]{32}$/), fc.string(), odd),
        agentGuidance: fc.oneof(fc.string(), odd),
      },
      { requiredKeys: [] },
    )
    .chain((base) =>
      fc.dictionary(key, odd, { maxKeys: 3 }).map((unknown) => ({ ...unknown, ...base })),
    ),
  odd,
);

const upstreamResult = fc.record({
  isError: fc.oneof(fc.constant(true), fc.boolean()),
  failure: failureObject,
  otherMeta: fc.dictionary(key, odd, { maxKeys: 3 }),
  text: fc.string(),
});

describe('property: the proxy relays _meta exactly as the upstream sent it', () => {
  let current: Record<string, unknown> = { content: [] };
  const upstream = scriptedUpstream(() => ({ result: current }));
  let p: Awaited<ReturnType<typeof throughProxy>>;
  beforeAll(async () => {
    p = await throughProxy({ upstream: upstream.factory });
  });
  afterAll(async () => {
    await p.close();
  });

  it('for generated failure objects (valid and invalid) the output _meta deep-equals the upstream one', async () => {
    await fc.assert(
      fc.asyncProperty(upstreamResult, async ({ isError, failure, otherMeta, text }) => {
        const meta = { ...otherMeta, [KEY]: failure };
        current = { content: [{ type: 'text', text }], isError, _meta: meta };
        const got = await p.client.request(
          { method: 'tools/call', params: { name: 'gen', arguments: {} } },
          ResultSchema,
        );
        expect(got._meta).toStrictEqual(meta);
        expect(got).toStrictEqual(current);
      }),
      { numRuns: 2_000 },
    );
  });
});
