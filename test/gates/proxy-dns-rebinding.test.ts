import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceBin, ensureGateTools, node22, run } from './gate-tools.js';
import { binPath } from '../../scripts/workspace.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('official conformance suite: dns-rebinding-protection against mcp-failure-proxy', () => {
  let work: string;
  beforeAll(async () => {
    await ensureGateTools();
    work = mkdtempSync(join(tmpdir(), 'omcp-proxy-rebinding-'));
  }, 300_000);
  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('the proxy on 127.0.0.1 with its defaults passes both checks', async () => {
    const proxy = spawn(
      process.execPath,
      [
        binPath('mcp-failure-proxy'),
        '--listen',
        '127.0.0.1:0',
        '--',
        process.execPath,
        'packages/proxy/test/fixtures/flaky-server.mjs',
      ],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise<void>((resolve) => proxy.on('close', () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = '';
        proxy.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const m = /listening on (\S+)\n/.exec(stderr);
          if (m?.[1] !== undefined) resolve(m[1]);
        });
        void exited.then(() => reject(new Error(`the proxy exited: ${stderr}`)));
      });
      const out = join(work, 'out');
      const r = await run(
        node22,
        [
          conformanceBin,
          'server',
          '--url',
          url,
          '--scenario',
          'dns-rebinding-protection',
          '-o',
          out,
        ],
        { timeoutMs: 60_000 },
      );
      expect(r.signal, r.stderr.slice(-500)).toBeNull();
      const dir = readdirSync(out).find((e) => e.startsWith('server-dns-rebinding-protection-'));
      expect(dir, readdirSync(out).join(', ')).toBeDefined();
      const checks = JSON.parse(
        readFileSync(join(out, dir ?? '', 'checks.json'), 'utf8'),
      ) as Array<{
        id: string;
        status: string;
      }>;
      expect(checks.map((c) => `${c.id}=${c.status}`).sort()).toEqual([
        'localhost-host-rebinding-rejected=SUCCESS',
        'localhost-host-valid-accepted=SUCCESS',
      ]);
    } finally {
      proxy.kill('SIGTERM');
      await exited;
    }
  });
});
