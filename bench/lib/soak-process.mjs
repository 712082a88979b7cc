// A process under soak: started with a capped V8 heap and soak-probe.cjs preloaded, so that its
// memory after GC can be read at any quiet moment (`measure()`), without changing what it runs.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Proxy options for a soak: on a loaded machine starting the upstream child or relaying a
 * 4 MB body can take longer than the defaults (10 s, 30 s), and a soak measures memory, not
 * timeouts.
 */
export const PATIENT_PROXY = ['--connect-timeout', '120000', '--timeout', '300000'];
const PROBE = fileURLToPath(new URL('./soak-probe.cjs', import.meta.url));

/**
 * Starts `node <args>` in the repository root with `--max-old-space-size=<heapMiB>`. `ready`
 * resolves with the first match of `readyLine` on stderr or stdout (e.g. a listening URL);
 * `measure()` resolves with `{ heap, rss }` in bytes; `exited` with the code, signal and the
 * last 4 KB of stderr (an out-of-memory crash says so there).
 */
export function startMeasured(args, { heapMiB, env = {}, readyLine, node = process.execPath }) {
  const child = spawn(
    node,
    ['--expose-gc', `--max-old-space-size=${heapMiB}`, '--require', PROBE, ...args],
    { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  let stderr = '';
  let text = '';
  const waiters = [];
  let onReady;
  const ready = new Promise((resolve, reject) => {
    onReady = resolve;
    child.once('close', (code) => reject(new Error(`exited ${code} before ready: ${stderr}`)));
  });
  ready.catch(() => undefined);
  const scan = () => {
    const match = readyLine?.exec(text);
    if (match !== null && match !== undefined) onReady(match[1] ?? match[0]);
  };
  // Read by readyLine, unless there is none: then the caller reads stdout itself.
  if (readyLine !== undefined)
    child.stdout.on('data', (d) => {
      text += d.toString();
      scan();
    });
  child.stderr.on('data', (d) => {
    const chunk = d.toString();
    stderr = (stderr + chunk).slice(-4096);
    text += chunk;
    scan();
    for (const m of chunk.matchAll(/^soak-memory (\{.*\})$/gm)) waiters.shift()?.(JSON.parse(m[1]));
  });
  const exited = new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    pid: child.pid,
    child,
    ready,
    exited,
    measure() {
      return new Promise((resolve, reject) => {
        waiters.push(resolve);
        void exited.then((out) =>
          reject(new Error(`the measured process exited ${out.code}: ${out.stderr}`)),
        );
        child.kill('SIGUSR2');
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A child process whose only output wanted is one line on stdout (e.g. an upstream's URL). */
export function startHelper(args, lineOf) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const line = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d.toString();
      const m = lineOf.exec(out);
      if (m !== null) resolve(m[1]);
    });
    child.once('close', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  line.catch(() => undefined);
  return { line, stop: () => child.kill('SIGTERM') };
}
