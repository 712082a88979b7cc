import { it } from 'vitest';
import { runExitApp } from './exit-paths.js';
it('measure', async () => {
  const out: string[] = [];
  for (let i = 0; i < 5; i++)
    for (const sdk of ['register', 'nodesdk'] as const) {
      const r = await runExitApp(sdk, 'exit', 'http://127.0.0.1:4399');
      out.push(`${sdk} ${r.endMs}`);
    }
  console.log(out.join('\n'));
}, 300000);
