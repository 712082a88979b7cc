// Marks each CommonJS build (`dist/cjs` of the packages named, else of every workspace package) as
// CommonJS, for the packages are ES modules ("type": "module") and tsc writes no package.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const folders =
  process.argv.length > 2
    ? process.argv.slice(2)
    : JSON.parse(readFileSync('package.json', 'utf8')).workspaces;
for (const folder of folders) {
  const cjs = join(folder, 'dist', 'cjs');
  if (existsSync(cjs)) writeFileSync(join(cjs, 'package.json'), '{ "type": "commonjs" }\n');
}
