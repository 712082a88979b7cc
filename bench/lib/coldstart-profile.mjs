// Where a cold start's CPU time goes: a V8 CPU profile (`node --cpu-prof`) read as self time
// summed by the package each sampled frame's script belongs to.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The owner of a script URL: the innermost `node_modules` package it sits in, this repository's
 * own build (`@omcp/instrumentation-mcp`), Node's internals, import-in-the-middle's generated
 * wrapper modules, or the V8 pseudo-frames (`(garbage collector)`, `(program)`, `(idle)`).
 */
export function ownerOf(url, functionName) {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node (internals)';
  if (/[?&]iitm=true/.test(url)) return 'import-in-the-middle wrappers';
  if (url.startsWith('data:')) return '(data: modules)';
  let path = url;
  try {
    path = url.startsWith('file:') ? fileURLToPath(url.split('?')[0]) : url;
  } catch {
    // not a file URL we can read: keep it as it is
  }
  const at = path.lastIndexOf('/node_modules/');
  if (at !== -1) {
    const [first, second] = path.slice(at + '/node_modules/'.length).split('/');
    return first?.startsWith('@') ? `${first}/${second}` : (first ?? path);
  }
  if (path.startsWith(join(root, 'dist')) || path.startsWith(join(root, 'register')))
    return '@omcp/instrumentation-mcp';
  if (path.startsWith(join(root, 'bench'))) return '(the server itself)';
  return path;
}

/** Self time in ms by owner, from one `.cpuprofile` (samples × their time deltas). */
export function selfTimeByOwner(profile) {
  const owners = new Map();
  for (const node of profile.nodes)
    owners.set(node.id, ownerOf(node.callFrame.url, node.callFrame.functionName));
  const ms = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const owner = owners.get(samples[i]) ?? '(unknown)';
    // A sample's delta is the time up to it; the next sample's delta is the time it stood for.
    const delta = (timeDeltas[i + 1] ?? timeDeltas[i] ?? 0) / 1000;
    ms.set(owner, (ms.get(owner) ?? 0) + delta);
  }
  return ms;
}

/**
 * The profiles in `dir` (the main thread's and, where Node writes one, the loader hooks'
 * thread's), summed by owner; sorted by time, largest first, with the total of each.
 */
export function profileByOwner(dir) {
  const total = new Map();
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  for (const f of files)
    for (const [owner, ms] of selfTimeByOwner(JSON.parse(readFileSync(join(dir, f), 'utf8'))))
      total.set(owner, (total.get(owner) ?? 0) + ms);
  return {
    profiles: files.length,
    rows: [...total].map(([owner, ms]) => ({ owner, ms })).sort((a, b) => b.ms - a.ms),
  };
}
