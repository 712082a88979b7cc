// CPU time and resident memory of a process and its descendants, read from /proc (Linux): a
// gateway is its own process plus the upstream child it started (and, for a bridge that spawns
// through a shell, the shell), and the section charges all of them to the gateway.
import { readFileSync, readdirSync } from 'node:fs';

const TICK_NS = 1e9 / 100; // USER_HZ is 100 on Linux
const PAGE = 4096;

/** `/proc/<pid>/stat`'s fields after the command name (which may hold spaces). */
function statOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // exited between the listing and the read
  }
}

/** The pids of `root` and every process below it. */
export function treeOf(root) {
  const parent = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statOf(name);
    if (f !== undefined) parent.set(Number(name), Number(f[1]));
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++)
    for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/**
 * CPU nanoseconds (user + system, with the reaped children of each) and RSS bytes of the tree
 * under `root`, and of `root` alone.
 */
export function usageOf(root) {
  let cpuNs = 0;
  let rss = 0;
  let rootRss = 0;
  for (const pid of treeOf(root)) {
    const f = statOf(pid);
    if (f === undefined) continue;
    // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14) ... rss(21)
    cpuNs += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_NS;
    const bytes = Number(f[21]) * PAGE;
    rss += bytes;
    if (pid === root) rootRss = bytes;
  }
  return { cpuNs, rss, rootRss };
}
