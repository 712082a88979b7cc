/**
 * A child abort controller tied to parent signals for the life of one request or one wait, and
 * cut loose from them by `dispose()`.
 *
 * Why not `AbortSignal.any`: on Node 20 a combined signal that has an abort listener is held
 * strongly (so that it can still fire) until it aborts, and the MCP SDK adds a listener to every
 * request's signal that it never removes. Each combined signal then lives for good, and with it
 * everything its listeners hold: the request, its arguments, its result. Every long-lived source
 * signal also keeps a reference to each signal combined from it. A link holds its parents only
 * through its own listeners, which `dispose()` removes, so once the request ends nothing points
 * to the child, and it goes with everything hung on it.
 */
export class AbortLink {
  private readonly controller = new AbortController();
  private parents: AbortSignal[] = [];
  private readonly forward = (event: Event): void => {
    this.abort((event.target as AbortSignal).reason);
  };

  /** Aborts at once when a parent already has; `undefined` parents are skipped. */
  constructor(parents: ReadonlyArray<AbortSignal | undefined>) {
    for (const parent of parents) {
      if (parent === undefined) continue;
      if (parent.aborted) {
        this.abort(parent.reason);
        return;
      }
      parent.addEventListener('abort', this.forward, { once: true });
      this.parents.push(parent);
    }
  }

  /** Aborted when a parent aborts (with its reason) or `abort()` is called, whichever is first. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts the child (not the parents) and lets go of the parents. */
  abort(reason?: unknown): void {
    this.dispose();
    this.controller.abort(reason);
  }

  /** Removes the listeners on the parents; a parent aborting later no longer reaches the child. */
  dispose(): void {
    for (const parent of this.parents) parent.removeEventListener('abort', this.forward);
    this.parents = [];
  }
}
