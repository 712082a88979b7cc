/**
 * The README as a user reads it in node_modules (or on the npm site): every relative link must
 * point at a file the package ships. So must the links of every shipped Markdown file the README
 * leads to (docs/, examples/), followed page by page.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../observability/helpers.js';

/** The relative link targets of a Markdown text (inline and reference links), as written. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const targets = [
    ...[...prose.matchAll(/\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map(
      (m) => (m[1] ?? m[2])!,
    ),
    ...[...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(t));
}

/** A link target as a path inside the package: relative to its page, without #fragment. */
const resolveLink = (page: string, target: string): string =>
  normalize(join(dirname(page), decodeURIComponent(target.replace(/[#?].*$/, '')))).replace(
    /\/$/,
    '',
  );

let packed: Set<string>;

beforeAll(() => {
  // --ignore-scripts: the prepack build would replace dist/ under the tests running beside this.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const [info] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  packed = new Set(info!.files.map((f) => f.path));
}, 60_000);

/** Whether a path is a shipped file, or a folder holding one. */
const shipped = (path: string): boolean =>
  packed.has(path) || [...packed].some((p) => p.startsWith(`${path}/`));

describe('relativeLinks', () => {
  it('finds inline and reference links, not URLs, anchors or links inside code blocks', () => {
    const md = [
      'See [a](docs/a.md), [b](<docs/b c.md> "title"), [c](../examples/x.mjs#L3), [web](https://x.y).',
      '[top](#top) [mail](mailto:a@b.c)',
      '```md',
      '[not a link](nowhere.md)',
      '```',
      '[ref]: docs/ref.md',
    ].join('\n');
    expect(relativeLinks(md)).toEqual([
      'docs/a.md',
      'docs/b c.md',
      '../examples/x.mjs#L3',
      'docs/ref.md',
    ]);
  });
});

describe('README links in the published package', () => {
  it('every relative link of the README, and of each shipped page it leads to, is shipped', () => {
    const dead: string[] = [];
    const seen = new Set<string>();
    const pages = ['README.md'];
    for (let page = pages.shift(); page !== undefined; page = pages.shift()) {
      if (seen.has(page)) continue;
      seen.add(page);
      for (const target of relativeLinks(readFileSync(join(ROOT, page), 'utf8'))) {
        const path = resolveLink(page, target);
        if (!shipped(path)) dead.push(`${page}: ${target}`);
        else if (path.endsWith('.md')) pages.push(path);
      }
    }
    expect(seen.size).toBeGreaterThan(1); // the README does lead somewhere
    expect(dead).toEqual([]);
  });
});
