import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkProxyOutcomes, type ProxyOutcome } from '../../src/check/proxy.js';
import {
  EXTRA_PROXY_CASES,
  proxyCases,
  proxyScript,
  type ProxyCase,
} from '../../src/check/scripted.js';
import type { CallAnswer } from '../../src/check/server.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../conformance/intermediary-cases.json', import.meta.url), 'utf8'),
) as { cases: { id: string; upstream: { answer: string } }[] };
const cases = proxyCases(vectors.cases);
const KEY = 'io.modelcontextprotocol/toolFailure';

/** What a faithful relay delivers: the upstream's result (a copy), one upstream call. */
function faithful(c: ProxyCase): ProxyOutcome {
  if (c.expect.forwarded === 'unchanged')
    return {
      case: c.id,
      answer: { kind: 'result', result: JSON.parse(JSON.stringify(c.result)) },
      upstreamCalls: 1,
    };
  return {
    case: c.id,
    answer: {
      kind: 'result',
      result: {
        content: [],
        isError: true,
        _meta: {
          [KEY]: {
            class: 'reliability',
            code: c.expect.ownFailure.codes[0],
            ...(c.expect.ownFailure.retryable ? { retryable: true } : {}),
            correlationId: '4bf92f3577b34da6a3ce929d0e0e4736',
          },
        },
      },
    },
    upstreamCalls: 1,
  };
}

function withAnswer(id: string, answer: CallAnswer, upstreamCalls = 1): ProxyOutcome[] {
  return cases.map((c) => (c.id === id ? { case: id, answer, upstreamCalls } : faithful(c)));
}

const statusOf = (outcomes: ProxyOutcome[], rule: string) =>
  checkProxyOutcomes(cases, outcomes).rules.find((r) => r.rule === rule);

describe('proxyCases', () => {
  it('takes every vector a scripted upstream can play, and the extra cases', () => {
    const playable = vectors.cases.filter((c) => c.upstream.answer === 'result').map((c) => c.id);
    expect(cases.map((c) => c.id)).toEqual([...playable, ...EXTRA_PROXY_CASES.map((c) => c.id)]);
    expect(cases.find((c) => c.id === 'upstream-garbage')?.expect.forwarded).toBe('own-failure');
    expect(proxyScript(cases).map((t) => t.name)).toEqual(cases.map((c) => c.id));
  });
});

describe('checkProxyOutcomes', () => {
  it('passes a relay that delivers every result unchanged, with one upstream call each', () => {
    const report = checkProxyOutcomes(cases, cases.map(faithful));
    expect(report.verdict).toBe('pass');
    expect(report.rules.map((r) => [r.rule, r.status])).toEqual([
      ['TF-PROXY-PRESERVE', 'pass'],
      ['TF-PROXY-NO-REWRITE', 'pass'],
      ['TF-PROXY-NO-RETRY', 'pass'],
      ['TF-PROXY-OWN-FAILURE', 'pass'],
    ]);
  });

  it('does not compare the order of the result’s own top-level keys', () => {
    const c = cases.find((x) => x.id === 'preserve-valid-failure-unknown-keys') as ProxyCase;
    const { _meta, ...rest } = c.result as Record<string, unknown>;
    const outcomes = withAnswer(c.id, { kind: 'result', result: { _meta, ...rest } });
    expect(checkProxyOutcomes(cases, outcomes).verdict).toBe('pass');
  });

  it('fails TF-PROXY-PRESERVE for a dropped unknown key, naming it', () => {
    const c = cases.find((x) => x.id === 'preserve-valid-failure-unknown-keys') as ProxyCase;
    const result = JSON.parse(JSON.stringify(c.result));
    delete result._meta['com.example/trace'];
    const row = statusOf(withAnswer(c.id, { kind: 'result', result }), 'TF-PROXY-PRESERVE');
    expect(row?.status).toBe('fail');
    expect(row?.violations[0]?.message).toBe('_meta changed: keys dropped: com.example/trace');
  });

  it('fails TF-PROXY-PRESERVE for _meta keys reordered, or a failure object re-encoded', () => {
    const c = cases.find((x) => x.id === 'preserve-valid-failure-unknown-keys') as ProxyCase;
    const sent = c.result as { _meta: Record<string, unknown> };
    const reversed = Object.fromEntries(Object.entries(sent._meta).reverse());
    const row = statusOf(
      withAnswer(c.id, { kind: 'result', result: { ...sent, _meta: reversed } }),
      'TF-PROXY-PRESERVE',
    );
    expect(row?.violations[0]?.message).toBe('_meta changed: key order changed');
    const failure = sent._meta[KEY] as Record<string, unknown>;
    const sorted = Object.fromEntries(
      Object.entries(failure).sort(([a], [b]) => a.localeCompare(b)),
    );
    const row2 = statusOf(
      withAnswer(c.id, {
        kind: 'result',
        result: { ...sent, _meta: { ...sent._meta, [KEY]: sorted } },
      }),
      'TF-PROXY-PRESERVE',
    );
    expect(row2?.violations[0]?.message).toBe(`_meta changed: values changed: ${KEY} (key order)`);
  });

  it('fails TF-PROXY-NO-REWRITE when a failure object is added to a bare error', () => {
    const c = cases.find((x) => x.id === 'no-failure-added-to-bare-error') as ProxyCase;
    const result = {
      ...(c.result as object),
      _meta: { [KEY]: { class: 'reliability', code: 'x', correlationId: 'p' } },
    };
    expect(
      statusOf(withAnswer(c.id, { kind: 'result', result }), 'TF-PROXY-NO-REWRITE')?.status,
    ).toBe('fail');
  });

  it('fails TF-PROXY-NO-RETRY when the upstream saw two calls, and a rule on an answer that never came', () => {
    const c = cases.find((x) => x.id === 'relay-retryable-once') as ProxyCase;
    const row = statusOf(
      withAnswer(c.id, { kind: 'result', result: c.result }, 2),
      'TF-PROXY-NO-RETRY',
    );
    expect(row?.violations[0]?.message).toBe(
      '2 tools/call requests reached the upstream, expected 1',
    );
    expect(
      statusOf(
        withAnswer('preserve-success-meta', { kind: 'no-answer', detail: 'timeout' }),
        'TF-PROXY-PRESERVE',
      )?.status,
    ).toBe('fail');
  });

  it('fails TF-PROXY-OWN-FAILURE when garbage is relayed, or the own failure is wrong', () => {
    expect(
      statusOf(
        withAnswer('upstream-garbage', { kind: 'result', result: 42 }),
        'TF-PROXY-OWN-FAILURE',
      )?.status,
    ).toBe('fail');
    const retryable = {
      kind: 'result' as const,
      result: {
        content: [],
        isError: true,
        _meta: {
          [KEY]: {
            class: 'reliability',
            code: 'malformed_response',
            retryable: true,
            correlationId: 'c',
          },
        },
      },
    };
    expect(
      statusOf(withAnswer('upstream-garbage', retryable), 'TF-PROXY-OWN-FAILURE')?.violations[0]
        ?.message,
    ).toMatch(/retryable is true/);
    expect(
      statusOf(
        withAnswer('upstream-garbage', { kind: 'rpc-error', code: -32603, message: 'bad' }),
        'TF-PROXY-OWN-FAILURE',
      )?.status,
    ).toBe('fail');
  });

  it('fails when no case was played', () => {
    const report = checkProxyOutcomes(cases, []);
    expect(report.verdict).toBe('fail');
    expect(report.rules.every((r) => r.status === 'not exercised')).toBe(true);
  });
});
