// The hostile large-body case (issue 31, D1): the proxy CLI at a 1 GiB heap with token auth,
// one attacker session sending, one at a time, `tools/call` requests whose arguments hold
// 1,390,000 empty arrays (4.17 MB bodies, under the 4 MiB body limit), while a legitimate
// client makes small calls in parallel in a session of its own. Every 20 requests (`every`)
// the proxy's heap after GC and RSS are read, with the legitimate calls answered so far
// (`served`); its peak RSS (VmHWM) at the end.
import { readFileSync } from 'node:fs';
import { PATIENT_PROXY, startMeasured } from './soak-process.mjs';
import { exitNote } from './soak-proxy.mjs';
import { WireClient } from './soak-wire.mjs';
import { binPath } from '../../scripts/workspace.mjs';

const TOKEN = 'soak-hostile-token-3f9d0a61c2';
/** Arguments of 1,390,000 empty arrays: `[[],[],...]`, 4,170,000 bytes of JSON. */
export const HOSTILE_ARRAYS = 1_390_000;

function peakRssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) * 1024;
}

/**
 * Resolves with `{ samples, elapsedMs, bodyBytes, peakRss, legitimate: { calls, failed } }`;
 * rejects when an attack request is not answered with the upstream's result or the proxy dies.
 */
export async function hostileBodies({ requests, every = 20, heapMiB = 1024, onSample, node }) {
  const proxy = startMeasured(
    [
      binPath('mcp-failure-proxy'),
      '--listen',
      '127.0.0.1:0',
      ...PATIENT_PROXY,
      '--auth-token-env',
      'SOAK_PROXY_TOKEN',
      '--',
      process.execPath,
      'bench/lib/soak-upstream.mjs',
      'stdio',
    ],
    { heapMiB, node, readyLine: /listening on (\S+)\n/, env: { SOAK_PROXY_TOKEN: TOKEN } },
  );
  const headers = { authorization: `Bearer ${TOKEN}` };
  const paramsJson = `{"name":"sink","arguments":{"data":[${'[],'.repeat(HOSTILE_ARRAYS - 1)}[]]}}`;
  const expected = String(HOSTILE_ARRAYS * 3 + 1);
  const samples = [];
  const legitimate = { calls: 0, failed: 0, firstFailure: undefined };
  const started = Date.now();
  let attacking = true;
  let legit;
  let attacker;
  try {
    const url = await proxy.ready;
    attacker = new WireClient(url, { headers, sockets: 1 });
    await attacker.initialize();
    legit = new WireClient(url, { headers, sockets: 1 });
    await legit.initialize();
    // The legitimate client, throughout the attack: each of its calls must be answered.
    const served = (async () => {
      while (attacking) {
        try {
          const result = await legit.callTool('sink', { data: legitimate.calls });
          if (result.content?.[0]?.text !== String(String(legitimate.calls).length))
            throw new Error(`answered ${JSON.stringify(result).slice(0, 200)}`);
        } catch (error) {
          legitimate.failed += 1;
          legitimate.firstFailure ??= String(error);
        }
        legitimate.calls += 1;
      }
    })();
    for (let n = 1; n <= requests; n++) {
      const { message } = await attacker.rpc('tools/call', undefined, paramsJson);
      if (message.result?.content?.[0]?.text !== expected)
        throw new Error(`attack request ${n} answered ${JSON.stringify(message).slice(0, 300)}`);
      if (n % every === 0 || n === requests) {
        samples.push({ calls: n, ...(await proxy.measure()), served: legitimate.calls });
        onSample?.(samples.at(-1));
      }
    }
    attacking = false;
    await served;
    const peakRss = peakRssOf(proxy.pid);
    return {
      samples,
      elapsedMs: Date.now() - started,
      bodyBytes: Buffer.byteLength(paramsJson) + 60,
      peakRss,
      legitimate,
    };
  } catch (error) {
    const out = await Promise.race([proxy.exited, new Promise((r) => setTimeout(r, 2000, null))]);
    throw new Error(
      `after ${samples.at(-1)?.calls ?? 0}+ requests: ${error instanceof Error ? error.message : String(error)}${exitNote(out)}`,
      { cause: error },
    );
  } finally {
    attacking = false;
    await attacker?.close().catch(() => undefined);
    await legit?.close().catch(() => undefined);
    await proxy.stop();
  }
}
