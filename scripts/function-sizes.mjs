// `node scripts/function-sizes.mjs [limit] [dir ...]`: every function in the TypeScript sources
// under each dir (default src) whose body spans at least `limit` lines (default 100), longest
// first, as `lines path:line name`. Exit code 1 when one does, 0 when none does.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import ts from 'typescript';

const walk = (d) =>
  readdirSync(d).flatMap((f) => {
    const p = `${d}/${f}`;
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });

/** The name a function is known by: its own, or the variable or property it is assigned to. */
function nameOf(node) {
  if (node.name !== undefined) return node.name.getText();
  const p = node.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) return p.name.getText();
  return '<anonymous>';
}

/** `[{ lines, file, line, name }]` of the functions in `dirs` spanning at least `limit` lines. */
export function longFunctions(dirs, limit) {
  const out = [];
  for (const file of dirs.flatMap(walk)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body !== undefined) {
        const lines = lineOf(node.end) - lineOf(node.getStart(sf)) + 1;
        if (lines >= limit)
          out.push({ lines, file, line: lineOf(node.getStart(sf)) + 1, name: nameOf(node) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [limitArg, ...dirs] = process.argv.slice(2);
  const found = longFunctions(dirs.length > 0 ? dirs : ['src'], Number(limitArg ?? '100'));
  for (const f of found) console.log(`${f.lines} ${f.file}:${f.line} ${f.name}`);
  process.exitCode = found.length > 0 ? 1 : 0;
}
