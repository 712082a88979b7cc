// npm run dashboards: writes observability/grafana/dashboards/*.json from dashboard.ts.
// `--check` only compares and exits 1 when a committed file is stale.
// Node 20 cannot import TypeScript, so the TS modules (dashboard.ts, render.ts and their relative
// imports) are transpiled into node_modules/.cache, where bare imports still resolve.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const out = join(root, 'node_modules/.cache/omcp-dashboards');

function transpile(file, seen) {
  if (seen.has(file)) return;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    fileName: file,
  });
  const target = join(out, relative(root, file)).replace(/\.ts$/, '.js');
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, outputText);
  for (const [, spec] of outputText.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
    transpile(resolve(dirname(file), `${spec}.ts`), seen);
  }
}

rmSync(out, { recursive: true, force: true });
const entry = join(here, 'render.ts');
transpile(entry, new Set());
const { renderDashboards } = await import(
  pathToFileURL(join(out, relative(root, entry)).replace(/\.ts$/, '.js')).href
);

const check = process.argv.includes('--check');
let stale = 0;
for (const { path, content } of await renderDashboards()) {
  const file = join(here, path);
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // a missing file is stale
  }
  if (current === content) continue;
  if (check) {
    console.error(`${relative(root, file)} is out of date: run npm run dashboards`);
    stale++;
  } else {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    console.log(`wrote ${relative(root, file)}`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
