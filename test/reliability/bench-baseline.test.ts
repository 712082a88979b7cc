/**
 * `npm run bench:compare` holds a change to the baseline recorded in bench/baseline.json, not to
 * the previous session's head: that commit must be in this branch's history, and the command
 * refuses more builds than two with one line saying how to call it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('bench:compare baseline', () => {
  it('is a commit of this history, recorded with the reason it is the baseline', () => {
    const { commit, why } = JSON.parse(readFileSync(`${root}/bench/baseline.json`, 'utf8')) as {
      commit: string;
      why: string;
    };
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(why.length).toBeGreaterThan(20);
    // Throws unless the baseline is an ancestor of HEAD.
    execFileSync('git', ['merge-base', '--is-ancestor', commit, 'HEAD'], { cwd: root });
  });

  it('says in one line how to call it when given more than two builds', () => {
    const run = spawnSync(process.execPath, ['bench/compare.mjs', 'a', 'b', 'c'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      'bench:compare: usage: npm run bench:compare [-- [<A>] <B>], each a commit, `worktree` or `dist`',
    ]);
  });
});
