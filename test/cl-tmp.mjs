import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawn } from 'node:child_process';
const p = spawn(process.execPath, ['dist/esm/cli/mcp-failure-proxy.js', '--listen', '127.0.0.1:0', '--revision', '2026-07-28', '--', process.execPath, 'test/up-tmp.mjs'], { stdio: ['ignore', 'inherit', 'pipe'] });
const url = await new Promise((r) => p.stderr.on('data', (d) => { process.stderr.write(d); const m = /listening on (\S+)/.exec(String(d)); if (m) r(m[1]); }));
for (const mode of ['default', 'pin', 'auto']) {
  const client = new Client({ name: 'c', version: '1' }, mode === 'pin' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : mode === 'auto' ? { versionNegotiation: { mode: 'auto' } } : undefined);
  try {
    const t = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(t);
    console.log(mode, 'version', client.getNegotiatedProtocolVersion?.(), 'sid', t.sessionId);
    console.log(mode, 'tools', JSON.stringify(await client.listTools()));
    console.log(mode, 'call', JSON.stringify(await client.callTool({ name: 'fail', arguments: {} })));
  } catch (e) { console.log(mode, 'ERR', e); }
  await client.close();
}
p.kill();
