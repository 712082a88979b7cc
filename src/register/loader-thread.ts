import * as workerThreads from 'node:worker_threads';

/** What {@link onLoaderThread} reads of `node:worker_threads`. */
export interface ThreadFacts {
  isMainThread: boolean;
  parentPort: unknown;
  /** Node.js 22.14 and later; absent before. */
  isInternalThread?: boolean;
}

/**
 * Whether this code runs on Node's module loader thread. Node runs `--require` preloads again on
 * that thread, which any `module.register()` starts (Sentry's `init` does). No application code
 * runs there, so an SDK started there would only print a second start line and export nothing.
 * Node 22.14+ says so (`isInternalThread`); before, it is the one worker without a `parentPort`
 * (a `Worker` of the application always has one).
 */
export function onLoaderThread(threads: ThreadFacts = workerThreads): boolean {
  if (threads.isMainThread) return false;
  if (typeof threads.isInternalThread === 'boolean') return threads.isInternalThread;
  return threads.parentPort === null || threads.parentPort === undefined;
}
