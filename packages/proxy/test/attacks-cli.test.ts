// The attacks of issue 31 that need the proxy as the operator runs it: the CLI process with a
// stdio upstream child. Deeply nested arguments with --circuit-breaker (D3: the proxy's own
// failure to send them was blamed on the upstream and opened the tool's circuit), and the
// downstream bearer token in the child's environment (D5). The rest: attacks.test.ts.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { TOOL_FAILURE_META_KEY as KEY } from '../../tool-failure/src/index.js';
import { INVALID_PARAMS } from '../../tool-failure/src/wire/jsonrpc.js';
import { baseEnv, startCli } from './cli-process.js';

const FIXTURE = 'packages/proxy/test/fixtures/attack-server.mjs';
const TOKEN = `tok-${randomUUID()}`;

type Message = {
  id?: unknown;
  result?: {
    isError?: boolean;
    content?: Array<{ text?: string }>;
    _meta?: Record<string, unknown>;
  };
  error?: { code: number; message: string };
};

/** A hand-made session on the proxy at `url`: raw POSTs, the token on each. */
async function openSession(url: string): Promise<(body: string) => Promise<Message>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${TOKEN}`,
  };
  const send = async (body: string): Promise<{ res: Response; text: string }> => {
    const res = await fetch(url, { method: 'POST', headers, body });
    return { res, text: await res.text() };
  };
  const init = await send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'attacker', version: '1' },
      },
    }),
  );
  expect(init.res.status, init.text).toBe(200);
  headers['mcp-session-id'] = init.res.headers.get('mcp-session-id') ?? '';
  await send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return async (body) => {
    const { text } = await send(body);
    const data = /^data: (.*)$/m.exec(text)?.[1];
    return JSON.parse(data ?? text) as Message;
  };
}

describe('attacks on the CLI (stdio upstream)', () => {
  let cli: ReturnType<typeof startCli> | undefined;
  afterEach(async () => {
    await cli?.stop();
    cli = undefined;
  });

  it('D3: arguments nested 5,000 levels deep are the caller’s invalid input: never sent, never blamed on the upstream, never opening the circuit; each logged in one line', async () => {
    cli = startCli(
      [
        '--listen',
        '127.0.0.1:0',
        '--auth-token-env',
        'PROXY_TOKEN',
        '--circuit-breaker',
        '--',
        process.execPath,
        FIXTURE,
      ],
      { ...baseEnv(), PROXY_TOKEN: TOKEN },
    );
    const call = await openSession(await cli.listening);
    const list = await call('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    expect(list.result).toBeDefined();
    // 10 KB of request: an array 5,000 levels deep, which JSON.stringify cannot write.
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    for (let i = 0; i < 6; i++) {
      const answer = await call(
        `{"jsonrpc":"2.0","id":${10 + i},"method":"tools/call","params":{"name":"ok","arguments":{"a":${deep}}}}`,
      );
      expect(answer.result?.isError).toBe(true);
      expect(answer.result?._meta?.[KEY]).toMatchObject({
        class: 'capability',
        code: 'invalid_input',
        retryable: false,
      });
      expect(answer.result?.content?.[0]?.text).toMatch(/nest deeper than 1000 levels/);
    }
    // Any other method: a JSON-RPC invalid-params error.
    const other = await call(
      `{"jsonrpc":"2.0","id":30,"method":"resources/read","params":{"uri":"x","deep":${deep}}}`,
    );
    expect(other.error?.code).toBe(INVALID_PARAMS);
    // The healthy tool's circuit is closed: the next ordinary call is relayed and succeeds.
    const ok = await call(
      '{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"ok","arguments":{}}}',
    );
    expect(ok.result?.isError).toBeUndefined();
    expect(ok.result?.content?.[0]?.text).toBe('ok');
    const out = await cli.stop();
    cli = undefined;
    const faults = out.stderr.split('\n').filter((l) => l.includes('invalid_input'));
    expect(faults, out.stderr).toHaveLength(6);
    for (const line of faults)
      expect(line).toMatch(
        /^mcp-failure-proxy: tools\/call "ok": capability\/invalid_input \(.*\); correlationId [0-9a-f]{32}$/,
      );
    expect(out.stderr).toMatch(/^mcp-failure-proxy: resources\/read: not relayed.*\(-32602\)$/m);
    expect(out.stderr).not.toMatch(/malformed_response|circuit_open/);
    expect(out.stderr).not.toContain(TOKEN);
  });

  it('D5: the stdio child never receives the downstream token; the rest of the environment it inherits', async () => {
    cli = startCli(
      [
        '--listen',
        '127.0.0.1:0',
        '--auth-token-env',
        'PROXY_TOKEN',
        '--',
        process.execPath,
        FIXTURE,
      ],
      { ...baseEnv(), PROXY_TOKEN: TOKEN, ATTACK_VISIBLE: 'inherited' },
    );
    const call = await openSession(await cli.listening);
    const answer = await call(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'env', arguments: { names: ['PROXY_TOKEN', 'ATTACK_VISIBLE'] } },
      }),
    );
    expect(JSON.parse(answer.result?.content?.[0]?.text ?? '{}')).toStrictEqual({
      PROXY_TOKEN: null,
      ATTACK_VISIBLE: 'inherited',
    });
  });
});
